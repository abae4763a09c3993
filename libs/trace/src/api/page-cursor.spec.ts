import { decodeRunCursor, decodeSessionCursor, encodeRunCursor, encodeSessionCursor } from './page-cursor';

const b64 = (text: string) => Buffer.from(text).toString('base64url');

describe.each([
  [
    'session list',
    { updatedAt: new Date('2026-12-03T18:00:00.123Z'), sessionId: 'session_0001-a' },
    encodeSessionCursor as (position: never) => string,
    decodeSessionCursor as (cursor: string) => unknown,
  ],
  [
    'run list',
    { createdAt: new Date('2026-12-03T18:00:00.123Z'), runId: '7d6fa9f3-8c96-4a1d-af8b-8e69a28c7ec5' },
    encodeRunCursor as (position: never) => string,
    decodeRunCursor as (cursor: string) => unknown,
  ],
])('%s cursor', (_list, position, encode, decode) => {
  it('decodes what it encodes, to the millisecond, as opaque base64url', () => {
    const cursor = encode(position as never);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decode(cursor)).toEqual(position);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'a+b/c='],
    ['not JSON', b64('not json')],
    ['an object', b64('{"t":1,"s":"abc"}')],
    ['three items', b64('[1,"abc",2]')],
    ['a string time', b64('["1","abc"]')],
    ['a fractional time', b64('[1.5,"abc"]')],
    ['a negative time', b64('[-1,"abc"]')],
    ['a time past Date range', b64('[9007199254740991,"abc"]')],
    ['an empty id', b64('[1,""]')],
    ['an id with SQL', b64('[1,"x\' OR 1=1"]')],
    ['an id too long', b64(`[1,"${'a'.repeat(65)}"]`)],
    ['too long', 'a'.repeat(201)],
  ])('refuses %s', (_name, cursor) => {
    expect(decode(cursor)).toBeNull();
  });
});
