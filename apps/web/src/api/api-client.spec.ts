import { errorOf } from './api-client';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('errorOf', () => {
  it.each<[string, Response, number, string]>([
    [
      'joins validation messages',
      json(400, {
        statusCode: 400,
        message: ['query must be 1 to 4000 characters', 'session_id is invalid'],
      }),
      400,
      'query must be 1 to 4000 characters; session_id is invalid',
    ],
    [
      'keeps the access message',
      json(403, { message: 'This API key lacks the auditor role.' }),
      403,
      'This API key lacks the auditor role.',
    ],
    [
      'never shows a 5xx body',
      json(500, { message: 'SELECT secret FROM internals' }),
      500,
      'The request failed (HTTP 500).',
    ],
    [
      'shows the wait of a 429 from its Retry-After',
      json(
        429,
        { message: 'Too many requests; try again in 42 s.', retry_after_s: 42 },
        { 'retry-after': '42' },
      ),
      429,
      'Too many requests; try again in 42 s.',
    ],
    [
      'shows a 429 without a body as a wait, not an HTTP status',
      new Response('ThrottlerException: Too Many Requests', { status: 429, headers: { 'retry-after': '7' } }),
      429,
      'Too many requests; try again in 7 s.',
    ],
    [
      'asks to retry after a 503',
      json(503, { message: 'at capacity' }, { 'retry-after': '5' }),
      503,
      'The service is busy; try again in 5 s.',
    ],
    [
      'falls back to the status for a body without a message',
      new Response('oops', { status: 404 }),
      404,
      'The request failed (HTTP 404).',
    ],
  ])('%s', async (_name, response, status, message) => {
    const error = await errorOf(response);
    expect(error.status).toBe(status);
    expect(error.message).toBe(message);
  });
});
