import { ArgumentMetadata, BadRequestException, ValidationPipe } from '@nestjs/common';
import { ChatRequestDto } from '@app/chat';
import { MAX_QUERY_CHARS } from '@app/tools';
import { RequestValidationPipe, VALIDATION_OPTIONS } from './request-validation.pipe';

const chatBody: ArgumentMetadata = { type: 'body', metatype: ChatRequestDto };
const classValidated = new ValidationPipe(VALIDATION_OPTIONS);
const pipe = new RequestValidationPipe();

/** What class-transformer and class-validator make of `body`: the DTO, or the refusal's messages. */
async function judged(via: ValidationPipe, body: unknown): Promise<unknown> {
  try {
    return await via.transform(body, chatBody);
  } catch (error) {
    return (error as BadRequestException).getResponse();
  }
}

describe('ChatRequestDto.ofPlainBody: the fast path agrees with the validation pipe', () => {
  it.each<[string, unknown]>([
    ['a query', { query: 'order-123 payment times out' }],
    ['a query to trim', { query: '  hi \n' }],
    ['a query of the longest length', { query: 'x'.repeat(MAX_QUERY_CHARS) }],
    ['the longest query once trimmed', { query: ` ${'x'.repeat(MAX_QUERY_CHARS)} ` }],
    ['letters beyond ASCII', { query: 'paiement échoué 支付超时' }],
    ['a session id to lowercase', { query: 'hi', session_id: 'AbCdEfGh-12_x' }],
    ['a session id of the longest length', { session_id: 'a'.repeat(64), query: 'hi' }],
  ])('takes %s exactly as the pipe does', async (_name, body) => {
    const fast = ChatRequestDto.ofPlainBody(body);
    expect(fast).toBeInstanceOf(ChatRequestDto);
    expect(fast).toEqual(await judged(classValidated, body));
  });

  it.each<[string, unknown]>([
    ['an empty query', { query: '' }],
    ['a blank query', { query: ' \t ' }],
    ['a query one over the limit', { query: 'x'.repeat(MAX_QUERY_CHARS + 1) }],
    ['an emoji (a surrogate pair, counted as one character)', { query: '😀'.repeat(MAX_QUERY_CHARS) }],
    ['a lone surrogate', { query: 'a\uD800b' }],
    ['a variation selector', { query: '\uFE0F' }],
    ['a query that is not a string', { query: 42 }],
    ['a null query', { query: null }],
    ['no query', {}],
    ['a session id too short', { query: 'hi', session_id: 'short' }],
    ['a session id too long', { query: 'hi', session_id: 'a'.repeat(65) }],
    ['a session id of the wrong characters', { query: 'hi', session_id: 'bad id!!' }],
    ['a null session id', { query: 'hi', session_id: null }],
    ['a numeric session id', { query: 'hi', session_id: 12345678 }],
    ['an unknown property', { query: 'hi', extra: 1 }],
    ['notify', { query: 'hi', notify: ['ops-slack'] }],
    ['a __proto__ property', JSON.parse('{"query":"hi","__proto__":{"x":1}}')],
    ['an array', [{ query: 'hi' }]],
    ['a string', 'hi'],
    ['null', null],
  ])('leaves %s to the pipe', (_name, body) => {
    expect(ChatRequestDto.ofPlainBody(body)).toBeNull();
  });
});

describe('RequestValidationPipe', () => {
  it.each<[string, unknown]>([
    ['a plain valid body', { query: ' hi ', session_id: 'ABCDEFGH' }],
    ['a valid body with notify', { query: 'hi', notify: ['ops-slack'] }],
    ['an invalid body', { query: '', extra: 1 }],
    ['an emoji query', { query: '😀' }],
  ])('answers %s as ValidationPipe does', async (_name, body) => {
    expect(await judged(pipe, body)).toEqual(await judged(classValidated, body));
  });

  it('validates other arguments as ValidationPipe does', async () => {
    const metadata: ArgumentMetadata = { type: 'query', metatype: String, data: 'cursor' };
    await expect(pipe.transform('abc', metadata)).resolves.toBe('abc');
  });
});
