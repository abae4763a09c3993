import { ConfigValidationError } from '@app/config';
import { loadLlmConfig, parseExtraBody } from './llm.config';

describe('LLM config', () => {
  it('has a max_tokens cap for every role and leaves optional knobs unset by default', () => {
    const config = loadLlmConfig({});
    expect(config.maxTokens).toEqual({
      'intent-router': 2048,
      'system-chat': 2048,
      'knowledge-answer': 4096,
      'knowledge-guard': 4096,
      'diagnosis-agent': 8192,
      'evidence-repair': 8192,
      'semantic-guard': 4096,
    });
    expect(config).toMatchObject({ temperature: undefined, reasoningEffort: undefined, extraBody: {} });
  });

  it('reads the knobs', () => {
    const config = loadLlmConfig({
      LLM_TEMPERATURE: '0.2',
      LLM_REASONING_EFFORT: 'high',
      LLM_EXTRA_BODY: '{"thinking":{"type":"enabled"}}',
      LLM_DIAGNOSIS_AGENT_MAX_TOKENS: '1000',
    });
    expect(config).toMatchObject({
      temperature: 0.2,
      reasoningEffort: 'high',
      extraBody: { thinking: { type: 'enabled' } },
      maxTokens: expect.objectContaining({ 'diagnosis-agent': 1000 }),
    });
  });

  it('accepts LLM_REASONING_EFFORT=none (providers that switch thinking off with it)', () => {
    expect(loadLlmConfig({ LLM_REASONING_EFFORT: 'none' }).reasoningEffort).toBe('none');
  });

  it.each([
    [{}, 'models'],
    [{ NODE_ENV: 'test' }, 'off'],
    [{ NODE_ENV: 'test', LLM_STARTUP_CHECK: 'completion' }, 'completion'],
    [{ LLM_STARTUP_CHECK: 'off' }, 'off'],
  ])('start-up provider check for %p is %p', (env, check) => {
    expect(loadLlmConfig(env).startupCheck).toBe(check);
  });

  it.each([
    [{ LLM_STARTUP_CHECK: 'ping' }, 'LLM_STARTUP_CHECK'],
    [{ LLM_TEMPERATURE: '3' }, 'LLM_TEMPERATURE'],
    [{ LLM_REASONING_EFFORT: 'extreme' }, 'LLM_REASONING_EFFORT'],
    [{ LLM_SEMANTIC_GUARD_MAX_TOKENS: '8' }, 'LLM_SEMANTIC_GUARD_MAX_TOKENS'],
    [{ LLM_EXTRA_BODY: '{not json' }, 'LLM_EXTRA_BODY must be a JSON object (it is not valid JSON)'],
    [{ LLM_EXTRA_BODY: '[1]' }, 'LLM_EXTRA_BODY must be a JSON object'],
    [{ LLM_EXTRA_BODY: '{"max_tokens":10,"model":"x"}' }, 'LLM_EXTRA_BODY must not set max_tokens, model'],
  ])('refuses %p naming the key', (env, message) => {
    expect(() => loadLlmConfig(env)).toThrow(ConfigValidationError);
    expect(() => loadLlmConfig(env)).toThrow(message);
  });

  it('an unset LLM_EXTRA_BODY is an empty object', () => {
    expect(parseExtraBody(undefined)).toEqual({});
  });
});
