import { isIP } from 'node:net';
import { ValidateBy } from 'class-validator';

/** What Express's `trust proxy` setting receives: off, a number of trusted hops, or trusted addresses. */
export type TrustProxy = false | number | string[];

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: `false` (the default: clients are told apart by the connection's address and
 * X-Forwarded-For is ignored, so it cannot be forged), a hop count 1–10 (behind that many proxies), or a
 * comma-separated list of the proxies' addresses/CIDR ranges or `loopback`, `linklocal`, `uniquelocal`.
 * `true` (trust every hop) is refused: any client could then pick its own address and escape the limit.
 * Returns null for anything else.
 */
export function parseTrustProxy(text: string): TrustProxy | null {
  const value = text.trim();
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops >= 1 && hops <= 10 ? hops : null;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  return entries.length > 0 && entries.every(isAddressOrRange) ? entries : null;
}

export function IsTrustProxy(): PropertyDecorator {
  return ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseTrustProxy(value) !== null,
      defaultMessage: () =>
        'TRUST_PROXY must be false, a hop count 1-10, or a comma-separated list of proxy addresses/CIDR ranges or loopback, linklocal, uniquelocal',
    },
  });
}
