import { DEFAULT_JSON_FIELDS, formatById, LogRecord, RecordReader } from './formats';
import { matchesLogQuery, parseLogQuery } from './log-match';
import { candidateLines, candidateRecords, prefilterOf, searchOrderOf } from './log-prefilter';

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

  it('keeps a line holding every run when the primary’s anchor byte is common before it (the skip search takes over)', () => {
    const line = `{"message":"cache ${'m'.repeat(5000)} more"}`;
    expect(lines(`${line}\n`, ['cache', 'more'])).toEqual([line]);
  });

  it('keeps the lines whose message journald wrote as bytes (always examined)', () => {
    const text = '{"MESSAGE":[104,105],"PRIORITY":"3"}\n{"MESSAGE":"other","PRIORITY":"6"}';
    expect(lines(text, ['hi'], formatById('journald-json'))).toEqual([
      '{"MESSAGE":[104,105],"PRIORITY":"3"}',
    ]);
  });

  it.each([
    ['a Kelvin sign anywhere in a run', ['kafka'], ['{"msg":"\u212Aafka"}', '{"msg":"\\u212aafka"}']],
    [
      'İ as the last letter of a run (every line holding one)',
      ['hi'],
      ['{"msg":"Hİ"}', '{"msg":"H\\u0130"}', '{"msg":"İDE"}'],
    ],
    ['İ inside a run (its lower case puts a combining dot after the i)', ['ide'], []],
    ['no run that either can complete', ['error', 'timeout'], []],
  ])(
    'keeps the lines a character lowering to ASCII can make match, only when one can: %s',
    (_name, include, kept) => {
      const text = [
        '{"msg":"\u212Aafka"}',
        '{"msg":"\\u212aafka"}',
        '{"msg":"Hİ"}',
        '{"msg":"H\\u0130"}',
        '{"msg":"İDE"}',
        '{"msg":"none"}',
      ];
      const found = lines(text.join('\n'), include, formatById('pino-json'));
      expect(found).toEqual(kept);
      // The prefilter drops no line the matcher accepts.
      const terms = parseLogQuery(include.join(' '));
      const matched = text.filter((line) =>
        matchesLogQuery(
          { service: 'x', level: 'INFO', message: (JSON.parse(line) as { msg: string }).msg },
          terms,
          {},
        ),
      );
      expect(found).toEqual(expect.arrayContaining(matched));
    },
  );

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

describe('candidateRecords (formats whose records span lines)', () => {
  const LOGBACK = formatById('logback');
  const CONTEXT = { timeZone: 'UTC', referenceTime: 0, fields: DEFAULT_JSON_FIELDS };
  const startsRecord = (line: string) => LOGBACK.continuation?.(line) === null;
  const mergedText = (bytes: Buffer, spans: [number, number][]) =>
    spans.map(([from, to]) => bytes.toString('utf8', from, to)).join('');
  const header = (second: number, message: string) =>
    `2026-12-05 10:15:${String(second % 60).padStart(2, '0')}.123 ERROR [main] c.e.OrderService - ${message}`;

  /** The messages of the records that match `query`, reading `text` in chunks cut at `cuts` (line starts). */
  const matches = (text: string, query: string, cuts: number[], prefiltered: boolean): string[] => {
    const terms = parseLogQuery(query);
    const filter = prefilterOf(terms.include, LOGBACK, null);
    const bytes = Buffer.from(text, 'utf8');
    const reader = new RecordReader(LOGBACK, CONTEXT);
    const found: string[] = [];
    const take = (record: LogRecord) => {
      if (matchesLogQuery({ ...record, service: 'order-service' }, terms, {})) found.push(record.message);
    };
    const bounds = [0, ...cuts, bytes.length];
    for (let i = 0; i + 1 < bounds.length; i += 1) {
      const [start, end] = [bounds[i], bounds[i + 1]];
      const spans =
        prefiltered && filter
          ? (candidateRecords(bytes, start, end, filter, startsRecord) ?? [[start, end]])
          : [[start, end]];
      for (const [from, to] of spans) {
        for (const line of bytes.toString('utf8', from, to).split('\n')) {
          if (line.trim() === '') continue;
          for (const step of reader.push(line)) if (step.kind === 'record') take(step.record);
        }
      }
    }
    for (const step of reader.end()) if (step.kind === 'record') take(step.record);
    return found;
  };

  it('lets a record through whole when its stack trace holds the term, and skips records without it', () => {
    const text = [
      header(1, 'Handled request 1'),
      header(2, 'Payment failed'),
      'java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available',
      '\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)',
      header(3, 'Handled request 3'),
      header(4, 'Handled request 4'),
      '',
    ].join('\n');
    const bytes = Buffer.from(text, 'utf8');
    const filter = prefilterOf(['hikaripool'], LOGBACK, null)!;
    const spans = candidateRecords(bytes, 0, bytes.length, filter, startsRecord)!;
    expect(spans.map(([from, to]) => bytes.toString('utf8', from, to).trim().split('\n').length)).toEqual([
      3, // the payment record with its two stack-trace lines
      1, // the chunk's last record, which the next chunk may continue
    ]);
    expect(bytes.toString('utf8', spans[0][0], spans[0][1])).toContain('Payment failed');
  });

  it('keeps the lines a chunk starts with that continue the record the previous chunk began', () => {
    const text = ['\tat com.example.Pool.get(Pool.java:12)', header(5, 'Handled request 5'), ''].join('\n');
    const bytes = Buffer.from(text, 'utf8');
    const filter = prefilterOf(['hikaripool'], LOGBACK, null)!;
    const spans = candidateRecords(bytes, 0, bytes.length, filter, startsRecord)!;
    expect(spans).toEqual([[0, bytes.length]]);
  });

  it('walks a record of many always-examined lines once, not once per line (linear, not quadratic)', () => {
    // Every stack-trace line holds a Kelvin sign, so each is marked; the record is walked for the first.
    const text = [
      header(1, 'start'),
      ...Array.from({ length: 300 }, (_, i) => `\tat frame${i} \u212a`),
      header(2, 'next'),
      '',
    ].join('\n');
    const bytes = Buffer.from(text, 'utf8');
    const filter = prefilterOf(['kafka'], LOGBACK, null)!;
    let checks = 0;
    const counted = (line: string) => {
      checks += 1;
      return startsRecord(line);
    };
    const spans = candidateRecords(bytes, 0, bytes.length, filter, counted)!;
    expect(mergedText(bytes, spans)).toContain('frame299');
    expect(checks).toBeLessThan(3 * 302);
  });

  it('is null (the chunk is read whole) when a hit is further from its record start than the reader joins', () => {
    const text = [
      header(1, 'start'),
      ...Array.from({ length: 600 }, (_, i) => `\tat frame${i}`),
      '\tat com.zaxxer.hikari.HikariPool.get',
      '',
    ].join('\n');
    const bytes = Buffer.from(text, 'utf8');
    const filter = prefilterOf(['hikaripool'], LOGBACK, null)!;
    expect(candidateRecords(bytes, 0, bytes.length, filter, startsRecord)).toBeNull();
  });

  it('finds a record holding one run before and the other after the line where a skip search stretch ends', () => {
    // Anchor bytes (k) in every word of the first record give the anchors up; the skip search's stretch
    // then ends after the line holding the offset 256 KiB on: this record's first line holds 'kafka',
    // its stack-trace line after that line start holds 'needles'.
    const dense = header(0, 'k '.repeat(20));
    const trip = dense.split('k', 16).join('k').length + 1;
    const filler: string[] = [];
    let size = dense.length + 1;
    for (let i = 1; size < trip + 256 * 1024 - 300; i += 1) {
      filler.push(header(i, `x${'y'.repeat(150)}`));
      size += filler[filler.length - 1].length + 1;
    }
    const straddling = header(1, `${'z'.repeat(400)} kafka consumer`);
    const text = [
      dense,
      ...filler,
      straddling,
      '\tat needles.Pool.get(Pool.java:1)',
      header(2, 'end'),
      '',
    ].join('\n');
    expect(size + straddling.length).toBeGreaterThan(trip + 256 * 1024);
    const all = matches(text, 'kafka needles', [], false);
    expect(all).toHaveLength(1);
    expect(matches(text, 'kafka needles', [], true)).toEqual(all);
  });

  it('finds exactly the records reading every line finds, wherever the chunks are cut (randomised)', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
    const words = ['order', 'payment', 'timeout', 'retry', 'inventory', 'cache'];
    const stack = [
      'Caused by: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available',
      '\tat com.example.OrderService.pay(OrderService.java:42)',
      '\t... 12 more',
      '\tat com.example.Payment.retry(Payment.java:7)',
    ];
    for (let round = 0; round < 40; round += 1) {
      const lines: string[] = [];
      for (let record = 0; record < 60; record += 1) {
        lines.push(header(record, `${pick(words)} ${pick(words)} request ${record}`));
        if (random() < 0.4) for (let n = Math.floor(random() * 5); n >= 0; n -= 1) lines.push(pick(stack));
      }
      const text = `${lines.join('\n')}\n`;
      const starts = [...text.matchAll(/\n/g)]
        .map((match) => match.index! + 1)
        .filter((at) => at < text.length);
      const cuts = [
        ...new Set(Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(starts))),
      ].sort((a, b) => a - b);
      const query = pick([
        'hikaripool',
        'payment retry',
        'OrderService timeout',
        'cache "more"',
        'inventory',
      ]);
      const all = matches(text, query, cuts, false);
      expect(matches(text, query, cuts, true)).toEqual(all);
    }
  });
});
