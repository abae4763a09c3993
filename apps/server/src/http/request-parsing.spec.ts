import { MAX_BODY_DEPTH, nestedDeeperThan, parsingErrorOf } from './request-parsing';

describe('parsingErrorOf', () => {
  it.each([
    ['entity.too.large', 413],
    ['parameters.too.many', 413],
    ['entity.parse.failed', 400],
    ['charset.unsupported', 415],
    ['encoding.unsupported', 415],
    ['request.aborted', 400],
    ['request.size.invalid', 400],
  ])('maps body-parser %s to %s', (type, status) => {
    const error = Object.assign(new Error('raw parser message with "input"'), { type });
    const mapped = parsingErrorOf(error);
    expect(mapped?.getStatus()).toBe(status);
    expect(JSON.stringify(mapped?.getResponse())).not.toContain('input');
  });

  it.each([
    ['br', 'ERR__ERROR_FORMAT_PADDING_2'],
    ['deflate', 'Z_DATA_ERROR'],
    ['gzip', 'Z_BUF_ERROR'],
  ])('maps a %s body that fails to decode (%s) to 400', (_encoding, code) => {
    const error = Object.assign(new Error('Decompression failed'), { status: 400, code });
    const mapped = parsingErrorOf(error);
    expect(mapped?.getStatus()).toBe(400);
    expect(mapped?.getResponse()).toMatchObject({
      message: 'request body does not match its Content-Encoding',
    });
  });

  it.each([
    ['a server-side parser misuse', Object.assign(new Error('x'), { type: 'stream.encoding.set' })],
    ['a plain error', new Error('boom')],
    ['a non-error', 'boom'],
    ['null', null],
  ])('leaves %s alone', (_name, error) => {
    expect(parsingErrorOf(error)).toBeNull();
  });
});

describe('nestedDeeperThan', () => {
  const nest = (depth: number): unknown => (depth === 0 ? 'leaf' : { a: [nest(depth - 1)] });
  it.each([
    ['a string', 'x', false],
    ['null', null, false],
    ['a flat object', { query: 'x', session_id: 'y' }, false],
    ['exactly the limit', JSON.parse(`${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}`), false],
    [
      'one past the limit',
      JSON.parse(`${'['.repeat(MAX_BODY_DEPTH + 1)}${']'.repeat(MAX_BODY_DEPTH + 1)}`),
      true,
    ],
    ['objects and arrays mixed', nest(20), true],
    [
      'very deep input, without overflowing the stack',
      JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      true,
    ],
  ])('%s', (_name, value, expected) => {
    expect(nestedDeeperThan(value, MAX_BODY_DEPTH)).toBe(expected);
  });
});
