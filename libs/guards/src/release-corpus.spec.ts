import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findReleaseViolations, ReleaseViolation } from './release-checks';

/**
 * The release-check corpus by class (test/fixtures/release-corpus.json): each disguised variant must be
 * refused with its class, and ordinary SRE prose must be released (a false refusal is a failure too).
 */
interface Corpus {
  refused: Partial<Record<ReleaseViolation, string[]>>;
  released: string[];
}

const corpus = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'release-corpus.json'), 'utf8'),
) as Corpus;

const refused = Object.entries(corpus.refused).flatMap(([violation, texts]) =>
  texts!.map((text) => [violation as ReleaseViolation, text] as const),
);

describe('release-check corpus', () => {
  it.each(refused)('refuses as %s: %j', (violation, text) => {
    expect(findReleaseViolations([text], { documents: [] })).toContain(violation);
  });

  it.each(corpus.released)('releases ordinary prose: %j', (text) => {
    expect(findReleaseViolations([text], { documents: [] })).toEqual([]);
  });
});
