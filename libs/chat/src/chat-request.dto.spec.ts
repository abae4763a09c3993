import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ChatRequestDto } from './chat-request.dto';

describe('ChatRequestDto', () => {
  it('canonicalises the session id to the issued (lowercase) form', () => {
    const dto = plainToInstance(ChatRequestDto, {
      session_id: '3F2504E0-4F89-11D3-9A0C-0305E82C3301',
      query: ' hi ',
    });
    expect(validateSync(dto)).toEqual([]);
    expect(dto).toMatchObject({ session_id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', query: 'hi' });
  });

  it('still refuses a session id of the wrong shape', () => {
    const dto = plainToInstance(ChatRequestDto, { session_id: 'BAD ID!', query: 'hi' });
    expect(validateSync(dto).map((error) => error.property)).toEqual(['session_id']);
  });

  it.each([
    ['an array of target names', ['ops-slack', 'ops_webhook'], []],
    ['an empty array', [], ['notify']],
    ['a repeated name', ['a', 'a'], ['notify']],
    ['a name of the wrong shape', ['Ops Slack'], ['notify']],
    ['not an array', 'ops-slack', ['notify']],
    ['too many names', Array.from({ length: 11 }, (_, index) => `t${index}`), ['notify']],
  ])('notify: %s', (_case, notify, invalid) => {
    const dto = plainToInstance(ChatRequestDto, { query: 'hi', notify });
    expect(validateSync(dto).map((error) => error.property)).toEqual(invalid);
  });
});
