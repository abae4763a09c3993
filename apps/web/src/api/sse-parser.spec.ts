import { SseParser } from './sse-parser';

const STREAM =
  'event: metadata\ndata: {"session_id":"s1","run_id":"r1"}\n\n' +
  ': heartbeat\n\n' +
  'event: status\ndata: {"code":"ROUTING","message":"正在理解问题"}\n\n' +
  'event: done\ndata: {"outcome":"SUCCESS"}\n\n';

const EXPECTED = [
  { event: 'metadata', data: '{"session_id":"s1","run_id":"r1"}' },
  { event: 'status', data: '{"code":"ROUTING","message":"正在理解问题"}' },
  { event: 'done', data: '{"outcome":"SUCCESS"}' },
];

function feed(chunks: string[]) {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

describe('SseParser', () => {
  it('parses whole frames and skips heartbeat comments', () => {
    expect(feed([STREAM])).toEqual(EXPECTED);
  });

  it.each([1, 2, 3, 7, 13])('gives the same frames when the body arrives in %i-character chunks', (size) => {
    const chunks: string[] = [];
    for (let index = 0; index < STREAM.length; index += size) chunks.push(STREAM.slice(index, index + size));
    expect(feed(chunks)).toEqual(EXPECTED);
  });

  it('accepts CRLF line ends, also when a chunk ends between CR and LF', () => {
    const crlf = STREAM.replace(/\n/g, '\r\n');
    const cut = crlf.indexOf('\r\n') + 1;
    expect(feed([crlf.slice(0, cut), crlf.slice(cut)])).toEqual(EXPECTED);
  });

  it.each([
    ['joins multi-line data with newlines', 'event: x\ndata: a\ndata: b\n\n', [{ event: 'x', data: 'a\nb' }]],
    ['names an unnamed frame "message"', 'data: hi\n\n', [{ event: 'message', data: 'hi' }]],
    ['keeps a value without the optional space', 'event:x\ndata:1\n\n', [{ event: 'x', data: '1' }]],
    ['ignores unknown fields and frames without data', 'id: 7\nretry: 10\nevent: x\n\n', []],
    ['holds back an unterminated frame', 'event: x\ndata: 1\n', []],
  ])('%s', (_name, input, expected) => {
    expect(feed([input])).toEqual(expected);
  });
});
