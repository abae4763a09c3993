import { LINE_EDGE_BYTES, LineReader, requestIdIn } from './mcp-line-reader';

function read(chunks: string[], maxLineBytes: number) {
  const seen: string[] = [];
  const reader = new LineReader(maxLineBytes, {
    line: (text) => seen.push(`line ${text}`),
    overflowStarted: (head) => seen.push(`started ${head.slice(0, 8)}`),
    overflowEnded: (head, tail, bytes) => seen.push(`ended ${head.slice(0, 8)}|${tail.slice(-8)}|${bytes}`),
  });
  for (const chunk of chunks) reader.push(Buffer.from(chunk));
  return seen;
}

describe('LineReader', () => {
  it.each([
    ['one line per message', ['{"a":1}\n{"b":2}\n'], 100, ['line {"a":1}', 'line {"b":2}']],
    ['a message split across chunks', ['{"a"', ':1}\n'], 100, ['line {"a":1}']],
    ['a CRLF line and blank lines', ['{"a":1}\r\n\n  \n'], 100, ['line {"a":1}']],
    ['an unfinished line waits', ['{"a":1}'], 100, []],
    ['a line exactly at the cap', ['0123456789\n'], 10, ['line 0123456789']],
    [
      'a line over the cap is skipped to its newline, and the next line is read',
      ['01234', '56789A', 'BCDEF\n{"ok":1}\n'],
      10,
      ['started 01234567', 'ended 01234567|89ABCDEF|16', 'line {"ok":1}'],
    ],
  ])('%s', (_name, chunks, max, expected) => {
    expect(read(chunks, max)).toEqual(expected);
  });

  it('keeps only the two ends of an oversized line', () => {
    const seen: { head: string; tail: string; bytes: number }[] = [];
    const reader = new LineReader(1000, {
      line: () => undefined,
      overflowStarted: () => undefined,
      overflowEnded: (head, tail, bytes) => seen.push({ head, tail, bytes }),
    });
    const body = 'h'.repeat(600) + 'x'.repeat(100_000) + 't'.repeat(600);
    for (let i = 0; i < body.length; i += 4096) reader.push(Buffer.from(body.slice(i, i + 4096)));
    reader.push(Buffer.from('\n'));
    expect(seen).toEqual([
      { head: 'h'.repeat(LINE_EDGE_BYTES), tail: 't'.repeat(LINE_EDGE_BYTES), bytes: body.length },
    ]);
  });
});

describe('requestIdIn', () => {
  it.each([
    ['the SDK order: id last', '{"result":{"content":[]},"jsonrpc":"2.0","id":7}', 7],
    ['id first', '{"id":"abc","jsonrpc":"2.0","result":{', 'abc'],
    ['id right after jsonrpc', '{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text",', 12],
    ['a nested id at the end is not the message id', '{"result":{"x":{"id":3}},"jsonrpc":"2.0"}', null],
    ['a nested id at the start is not the message id', '{"result":{"id":3,"x":1', null],
    ['no id at all', 'not json', null],
  ])('%s', (_name, text, id) => {
    expect(requestIdIn(text)).toEqual(id);
  });

  it('reads the tail of an oversized line when its head names nothing', () => {
    expect(
      requestIdIn('{"result":{"content":[{"type":"text","text":"xxxx', 'xxxx"}]},"jsonrpc":"2.0","id":41}'),
    ).toBe(41);
  });
});
