import { decodeSessionCursor, encodeSessionCursor } from './session-cursor';

const b64 = (text: string) => Buffer.from(text).toString('base64url');

describe('session list cursor', () => {
  it('decodes what it encodes, to the millisecond', () => {
    const cursor = { updatedAt: new Date('2026-12-03T18:00:00.123Z'), sessionId: 'session_0001-a' };
    expect(decodeSessionCursor(encodeSessionCursor(cursor))).toEqual(cursor);
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
    ['an empty session id', b64('[1,""]')],
    ['a session id with SQL', b64('[1,"x\' OR 1=1"]')],
    ['a session id too long', b64(`[1,"${'a'.repeat(65)}"]`)],
    ['too long', 'a'.repeat(201)],
  ])('refuses %s', (_name, cursor) => {
    expect(decodeSessionCursor(cursor)).toBeNull();
  });
});
