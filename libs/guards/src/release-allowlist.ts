import ipaddr from 'ipaddr.js';
import { parse as parseDomain } from 'tldts';
import { asciiDomain, browserHost, type SensitiveToken } from './release-tokens';

/**
 * The operator's release allowlist (`RELEASE_ALLOWLIST`, docs/release-gate.md "Operator allowlist"):
 * company domains (an entry covers itself and its subdomains, compared label by label), internal hosts,
 * IP addresses and CIDR ranges. It vouches for hosts, links to them over http(s), e-mail addresses at
 * them and IP addresses in them; never for phone numbers, chat handles, file paths or commands.
 */
export interface ReleaseAllowlist {
  domains: readonly string[];
  ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export const EMPTY_ALLOWLIST: ReleaseAllowlist = { domains: [], ranges: [] };

/** Parses the comma- or space-separated list; `invalid` names each entry that is no domain, IP or range. */
export function parseReleaseAllowlist(raw: string): { allowlist: ReleaseAllowlist; invalid: string[] } {
  const domains: string[] = [];
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  const invalid: string[] = [];
  for (const entry of raw.split(/[\s,]+/u).filter((item) => item.length > 0)) {
    if (ipaddr.isValidCIDR(entry)) {
      ranges.push(ipaddr.parseCIDR(entry));
      continue;
    }
    if (ipaddr.isValid(entry) && (ipaddr.IPv6.isValid(entry) || ipaddr.IPv4.isValidFourPartDecimal(entry))) {
      const address = ipaddr.parse(entry);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      continue;
    }
    const domain = asciiDomain(entry);
    const host = browserHost(domain);
    const suffix = parseDomain(domain, { allowPrivateDomains: true }).publicSuffix;
    // A bare public suffix (`com`, `co.uk`) would vouch for every domain under it.
    if (
      !/^[\p{L}\p{N}\p{M}.-]+$/u.test(entry) ||
      /^[\d.]+$/u.test(domain) ||
      !domain ||
      host !== domain ||
      !/^[a-z0-9.-]+$/u.test(domain) ||
      !domain.includes('.') ||
      suffix === domain
    )
      invalid.push(entry);
    else domains.push(domain);
  }
  return { allowlist: { domains, ranges }, invalid };
}

const PRIVATE_RANGES = new Set(['private', 'loopback', 'uniqueLocal']);

function addressIn(allowlist: ReleaseAllowlist, host: string): boolean {
  const text = host.replace(/^\[|\]$/gu, '');
  if (!ipaddr.isValid(text)) return false;
  const address = ipaddr.process(text);
  return allowlist.ranges.some(
    ([range, bits]) => range.kind() === address.kind() && address.match([range, bits] as never),
  );
}

function domainIn(allowlist: ReleaseAllowlist, host: string): boolean {
  return allowlist.domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/**
 * Whether the allowlist (or the one built-in class, a private or loopback IPv4 address written plainly
 * with at most a port: the incident's own machine, unreachable from outside) vouches for a token.
 */
export function allowlistPermits(allowlist: ReleaseAllowlist, token: SensitiveToken): boolean {
  switch (token.kind) {
    case 'IP':
      if (!token.endpoint && PRIVATE_RANGES.has(ipaddr.parse(token.value).range())) return true;
      return addressIn(allowlist, token.value);
    case 'HOST':
      return domainIn(allowlist, token.value);
    case 'EMAIL':
      return token.host !== undefined && domainIn(allowlist, token.host);
    case 'LINK':
      return (
        /^https?:\/\//u.test(token.value) &&
        token.host !== undefined &&
        (domainIn(allowlist, token.host) || addressIn(allowlist, token.host))
      );
    case 'PHONE':
    case 'CHAT_HANDLE':
    case 'FILE_PATH':
      return false;
  }
}
