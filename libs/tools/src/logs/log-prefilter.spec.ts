import { formatById } from './formats';
import { candidateLines, prefilterOf, searchOrderOf } from './log-prefilter';

const lines = (
  text: string,
  include: string[],
  format = formatById('json'),
  service: string | null = null,
) => {
  const filter = prefilterOf(include, format, service);
  if (!filter) return null;
  const bytes = Buffer.from(text, 'utf8');
  return candidateLines(bytes, 0, bytes.length, filter).map(([start, end]) =>
    bytes.toString('utf8', start, end),
  );
};

describe('prefilterOf', () => {
  it.each([
    ['every required term contributes its runs', ['payment-service', 'timeout'], 'service'],
    ['a quoted phrase contributes each of its words', ['connection is not available'], 'available'],
    ['runs the level word may supply are not required', ['error', 'hikaripool'], 'hikaripool'],
  ])('%s', (_name, include, primary) => {
    expect(prefilterOf(include, formatById('json'), null)?.primary).toBe(primary);
  });

  it.each([
    ['no terms', [] as string[], formatById('json'), null],
    ['only level words', ['error', 'WARN'], formatById('json'), null],
    ['only the service the file path gives', ['payment-service'], formatById('json'), 'payment-service'],
    ['only text without ASCII runs', ['超时'], formatById('json'), null],
    ['a multi-line format (a term may be in a stack-trace line)', ['timeout'], formatById('logback'), null],
  ])('is null (every line parsed) for %s', (_name, include, format, service) => {
    expect(prefilterOf(include, format, service)).toBeNull();
  });
});

describe('searchOrderOf', () => {
  it.each([
    ['the run with the rarest anchor byte first', ['connection', 'hikaripool'], ['hikaripool', 'connection']],
    ['a run under half the longest never first', ['zq', 'timeout'], ['timeout', 'zq']],
    ['equally rare anchors: the longest first', ['kafka', 'kafkas'], ['kafkas', 'kafka']],
    ['then alphabetical', ['ok', 'ko'], ['ko', 'ok']],
    ['digits are common', ['5041', 'trace'], ['trace', '5041']],
  ])('%s', (_name, runs, expected) => {
    expect(searchOrderOf(runs)).toEqual(expected);
  });
});

describe('candidateLines', () => {
  const text = [
    '{"level":"ERROR","message":"HikariPool-1 - Connection is not available"}',
    '{"level":"INFO","message":"handled request"}',
    '{"level":"INFO","message":"hikaripool stats","request_id":"req-42"}',
    '{"level":"WARN","message":"pool","trace":{"id":"ABC123"}}',
    '{"message":"connection \\"is\\" not available","service":"x"}',
  ].join('\n');

  it.each([
    ['case-insensitive, every run in the same line', ['hikaripool', 'connection'], [0]],
    ['a term only in the raw line', ['hikaripool'], [0, 2]],
    ['an id only in a mapped field (request_id)', ['req-42'], [2]],
    ['an id in a nested field, any case', ['abc123'], [3]],
    [
      'a phrase whose JSON escapes split it still passes by its words',
      ['connection is not available'],
      [0, 4],
    ],
    ['a term absent everywhere', ['deadlock'], []],
  ])('%s', (_name, include, expected) => {
    const all = text.split('\n');
    expect(lines(text, include)).toEqual(expected.map((index) => all[index]));
  });

  it('keeps the lines whose message journald wrote as bytes (always examined)', () => {
    const text = '{"MESSAGE":[104,105],"PRIORITY":"3"}\n{"MESSAGE":"other","PRIORITY":"6"}';
    expect(lines(text, ['hi'], formatById('journald-json'))).toEqual([
      '{"MESSAGE":[104,105],"PRIORITY":"3"}',
    ]);
  });

  it('keeps lines with characters whose lower case is ASCII (İ, Kelvin sign)', () => {
    const text = '{"msg":"İD"}\n{"msg":"nothing"}\n{"msg":"\\u212a"}';
    expect(lines(text, ['id'], formatById('pino-json'))).toEqual(['{"msg":"İD"}', '{"msg":"\\u212a"}']);
  });

  it.each([
    ['a rare anchor', ['kafka', 'lag']],
    ['an anchor common in every line (the longest run drives the search)', ['kv', 'consumer']],
    ['a run in every line', ['consumer', 'group']],
  ])('keeps exactly the lines holding every run, any case, with %s', (_name, include) => {
    let seed = 3;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const words = ['KV', 'kv', 'Kafka', 'lag', 'LAG', 'consumer', 'Consumer', 'group', 'x', '"k"', 'kafk'];
    const all = Array.from(
      { length: 2000 },
      () =>
        `{"group":"${Array.from({ length: 1 + (next() % 6) }, () => words[next() % words.length]).join(' ')}"}`,
    );
    const expected = all.filter((line) => include.every((run) => line.toLowerCase().includes(run)));
    expect(lines(all.join('\n'), include)).toEqual(expected);
  });

  it('handles a last line without a line break and hits at line edges', () => {
    expect(lines('timeout\nok\ntimeout', ['timeout'])).toEqual(['timeout', 'timeout']);
  });
});
