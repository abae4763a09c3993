import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseReleaseAllowlist } from './release-allowlist';
import { findReleaseViolations, ReleaseViolation } from './release-checks';

/**
 * The release-check corpus by class (test/fixtures/release-corpus.json, docs/release-gate.md): each
 * disguised variant must be refused with its class when nothing vouches for it; ordinary SRE prose must
 * be released (a false refusal is a failure too); a vouched text is released with its runbook or the
 * operator's allowlist, and a near miss (another token, a cut or extended command) is not.
 */
interface Vouched {
  text: string;
  documents?: string[];
  allowlist?: string;
}
interface Corpus {
  refused: Partial<Record<ReleaseViolation, string[]>>;
  released: string[];
  vouched: Vouched[];
  not_vouched: (Vouched & { violation: ReleaseViolation })[];
}

const corpus = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'release-corpus.json'), 'utf8'),
) as Corpus;

const refused = Object.entries(corpus.refused).flatMap(([violation, texts]) =>
  texts!.map((text) => [violation as ReleaseViolation, text] as const),
);

const check = ({ text, documents = [], allowlist = '' }: Vouched) =>
  findReleaseViolations([text], { documents }, parseReleaseAllowlist(allowlist).allowlist);

describe('release-check corpus', () => {
  it.each(refused)('refuses as %s: %j', (violation, text) => {
    expect(findReleaseViolations([text], { documents: [] })).toContain(violation);
  });

  it.each(corpus.released)('releases ordinary prose: %j', (text) => {
    expect(findReleaseViolations([text], { documents: [] })).toEqual([]);
  });

  it.each(corpus.vouched)('releases what a runbook or the allowlist vouches for: %j', (item) => {
    expect(check(item)).toEqual([]);
    expect(check({ text: item.text })).not.toEqual([]);
  });

  it.each(corpus.not_vouched)('refuses a near miss: %j', (item) => {
    expect(check(item)).toContain(item.violation);
  });
});
