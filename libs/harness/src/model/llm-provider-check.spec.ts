import { judgeProviderAnswer } from './llm-provider-check';

describe('judgeProviderAnswer', () => {
  const key = { error: { code: 'invalid_api_key', message: 'Incorrect API key provided: sk-secret-0001' } };
  it.each([
    ['models', { status: 401, body: key }, false, 'the provider rejected LLM_API_KEY (401)'],
    ['completion', { status: 403, body: null }, false, 'the provider rejected LLM_API_KEY (403)'],
    ['completion', { status: 404, body: null }, false, 'model m1 not found (404)'],
    [
      'models',
      { status: 404, body: { error: { code: 'model_not_found' } } },
      false,
      'model m1 not found (404)',
    ],
    [
      'completion',
      {
        status: 400,
        body: { error: { code: 'invalid_parameter_error', message: 'only support stream mode' } },
      },
      false,
      'the provider answered a 1-token completion with HTTP 400 (invalid_parameter_error: only support stream mode)',
    ],
    [
      'models',
      { status: 200, body: { data: [{ id: 'm2' }] } },
      false,
      "model m1 not found in the provider's model list",
    ],
    [
      'models',
      { status: 200, body: { data: [{ id: 'm1' }] } },
      true,
      'the provider accepted LLM_API_KEY and LLM_MODEL',
    ],
    ['models', { status: 200, body: { data: [] } }, true, 'the provider accepted LLM_API_KEY and LLM_MODEL'],
    ['completion', { status: 200, body: {} }, true, 'the provider accepted LLM_API_KEY and LLM_MODEL'],
  ] as const)('%s %p -> up %p', (mode, answer, up, message) => {
    expect(judgeProviderAnswer(mode, 'm1', answer, ['sk-secret-0001'])).toMatchObject({
      up,
      httpStatus: answer.status,
      message,
    });
  });

  it('never repeats the key a provider echoes', () => {
    const result = judgeProviderAnswer('models', 'm1', { status: 500, body: key }, ['sk-secret-0001']);
    expect(result.message).not.toContain('sk-secret-0001');
  });
});
