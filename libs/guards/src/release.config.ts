import { ConfigType, registerAs } from '@nestjs/config';
import { IsString, MaxLength } from 'class-validator';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';
import { parseReleaseAllowlist } from './release-allowlist';

@EnvSection('guards', 'Release')
export class ReleaseEnv {
  /**
   * What the operator vouches for in released text (docs/release-gate.md "Operator allowlist"): company
   * domains (each covers its subdomains), internal hosts, IP addresses and CIDR ranges, comma- or
   * space-separated. Empty: only cited runbooks vouch.
   */
  @IsString() @MaxLength(10_000) RELEASE_ALLOWLIST: string = '';
}

export const releaseConfig = registerAs('release', () => {
  const env = validateEnv(ReleaseEnv);
  const { allowlist, invalid } = parseReleaseAllowlist(env.RELEASE_ALLOWLIST);
  // The entries are operator data, not secrets: naming the bad ones tells the operator what to fix.
  if (invalid.length > 0)
    throw new ConfigValidationError([
      `RELEASE_ALLOWLIST: not a domain (below a public suffix), IP address or CIDR range: ${invalid.join(', ')}`,
    ]);
  return { allowlist };
});
export type ReleaseConfig = ConfigType<typeof releaseConfig>;
