import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { startApp, useStubbedApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { postChat, SseEvent } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import type { StubReply } from '../support/stub-llm/stub-script';
import { TEST_MYSQL } from '../support/test-env';

const suite = useStubbedApp();
const { stub } = suite;

async function rows(sql: string, params: unknown[]): Promise<RowDataPacket[]> {
  const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
  try {
    return (await connection.query<RowDataPacket[]>(sql, params))[0];
  } finally {
    await connection.end();
  }
}

const runIdOf = (events: SseEvent[]) => String(events[0].data.run_id);
const outcomeOf = (events: SseEvent[]) => events.at(-1)?.data;
const diagnosis = () => ({ 'diagnosis-agent': agentTurns(draftJson()), 'semantic-guard': [SUPPORTED] });
const ask = () => postChat(suite.app.baseUrl, { query: 'order-123 payment times out' });

/** The structured warn lines the app logged while `action` ran (observed, still written). */
async function warnLines(action: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const spy = jest.spyOn(Logger.prototype, 'warn');
  try {
    await action();
    return spy.mock.calls
      .map(([line]) => line as Record<string, unknown>)
      .filter((line) => typeof line === 'object');
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe('router labels as real models write them', () => {
  it.each([
    ['Markdown emphasis', '**DIAGNOSIS**'],
    ['another case', 'Diagnosis'],
    ['an explanation after the label', 'DIAGNOSIS\nThe user reports a payment failure on one order.'],
    ['a Chinese label', '诊断'],
    ['a JSON-wrapped label', '{"intent":"DIAGNOSIS"}'],
    [
      'gpt-oss harmony markup',
      '<|channel|>analysis<|message|>Not KNOWLEDGE_QUERY.<|end|><|start|>assistant<|channel|>final<|message|>DIAGNOSIS<|return|>',
    ],
  ])('routes %s to DIAGNOSIS', async (_name, content) => {
    stub.load({ profile: 'lenient', roles: { 'intent-router': [{ content }], ...diagnosis() } });
    const response = await ask();
    expect(outcomeOf(response.events)).toEqual({ outcome: 'SUCCESS' });
    expect(stub.requestsFor('intent-router')).toHaveLength(1);
    const [run] = await rows('SELECT intent FROM diagnosis_run WHERE run_id = ?', [runIdOf(response.events)]);
    expect(run.intent).toBe('DIAGNOSIS');
  });

  it('drops the <think> block a local server leaves in the content', async () => {
    stub.load({
      profile: 'ollama-think',
      roles: { 'intent-router': [{ content: 'DIAGNOSIS' }], ...diagnosis() },
    });
    const response = await ask();
    expect(stub.requestsFor('intent-router')).toHaveLength(1);
    expect(stub.requestsFor('diagnosis-agent').length).toBeGreaterThan(0);
    const [run] = await rows('SELECT intent FROM diagnosis_run WHERE run_id = ?', [runIdOf(response.events)]);
    expect(run.intent).toBe('DIAGNOSIS');
  });

  it('still refuses two labels: one retry, then ROUTING_UNAVAILABLE', async () => {
    stub.load({
      profile: 'lenient',
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS or KNOWLEDGE_QUERY' }, { content: 'maybe DIAGNOSIS' }],
      },
    });
    const response = await ask();
    expect(response.events[2].data).toMatchObject({ code: 'ROUTING_UNAVAILABLE' });
    expect(stub.requestsFor('intent-router')).toHaveLength(2);
    expect(stub.requestsFor('diagnosis-agent')).toHaveLength(0);
  });
});

describe('provider errors are visible and final', () => {
  it('logs one warn line for a rejected key (401), without the key or the prompt, and does not retry it', async () => {
    stub.load({ api_key: 'sk-the-right-key-000000', roles: { 'intent-router': [{ content: 'DIAGNOSIS' }] } });
    let events: SseEvent[] = [];
    const lines = await warnLines(async () => (events = (await ask()).events));
    expect(events[2].data).toMatchObject({ code: 'MODEL_AUTH_FAILED' });
    expect(String(events[2].data.message)).not.toMatch(/try again/i);
    expect(stub.requestsFor('intent-router')).toHaveLength(1);
    const failed = lines.filter((line) => line.role === 'intent-router');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      runId: runIdOf(events),
      http_status: 401,
      error_code: 'MODEL_AUTH_FAILED',
      provider_error_type: 'invalid_request_error',
      provider_error_code: 'invalid_api_key',
    });
    expect(String(failed[0].provider_message)).toContain('Incorrect API key');
    const text = JSON.stringify(failed);
    expect(text).not.toContain('stub-key');
    expect(text).not.toContain('order-123');
  });

  it('does not retry a 404 for an unknown model, and names the provider code', async () => {
    stub.load({ models: ['deepseek-reasoner'], roles: { 'intent-router': [{ content: 'DIAGNOSIS' }] } });
    const lines = await warnLines(() => ask());
    expect(stub.requestsFor('intent-router')).toHaveLength(1);
    expect(lines.find((line) => line.role === 'intent-router')).toMatchObject({
      http_status: 404,
      provider_error_code: 'model_not_found',
    });
  });

  it("does not retry DashScope's 400 for thinking without streaming, and logs its message", async () => {
    stub.load({
      roles: {
        'intent-router': [
          {
            error: 400,
            error_type: 'invalid_request_error',
            error_code: 'invalid_parameter_error',
            error_message:
              'This model only support stream mode, please enable the stream parameter to access the model.',
          },
          { content: 'DIAGNOSIS' },
        ],
      },
    });
    const lines = await warnLines(() => ask());
    expect(stub.requestsFor('intent-router')).toHaveLength(1);
    expect(lines.find((line) => line.role === 'intent-router')).toMatchObject({
      http_status: 400,
      provider_error_code: 'invalid_parameter_error',
      provider_message: expect.stringContaining('only support stream mode'),
    });
  });
});

describe('Retry-After on the one retry of the router and SemanticGuard', () => {
  it('waits the seconds the provider asked for before the router retry', async () => {
    stub.load({
      roles: {
        'intent-router': [{ error: 429, retry_after: '1' }, { content: 'DIAGNOSIS' }],
        ...diagnosis(),
      },
    });
    const response = await ask();
    expect(outcomeOf(response.events)).toEqual({ outcome: 'SUCCESS' });
    const [first, second] = stub.requestsFor('intent-router');
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(1000);
    const attempts = await rows(
      "SELECT details FROM diagnosis_trace_event WHERE run_id = ? AND event_type = 'ATTEMPT' AND phase = 'ROUTING' ORDER BY id",
      [runIdOf(response.events)],
    );
    const details = attempts.map((row) =>
      typeof row.details === 'string' ? JSON.parse(row.details) : row.details,
    );
    expect(details[0]).toMatchObject({ outcome: 'MODEL_RATE_LIMITED', retry_after_ms: 1000 });
  });

  it('waits until an HTTP-date Retry-After before the SemanticGuard retry', async () => {
    const at = new Date(Date.now() + 3000).toUTCString();
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'semantic-guard': [{ error: 429, retry_after: at }, SUPPORTED],
      },
    });
    const response = await ask();
    expect(outcomeOf(response.events)).toEqual({ outcome: 'SUCCESS' });
    const [first, second] = stub.requestsFor('semantic-guard');
    expect(second).toBeDefined();
    // The 429 came before that date, and the retry not before it.
    expect(first.receivedAt).toBeLessThan(Date.parse(at));
    expect(second.receivedAt).toBeGreaterThanOrEqual(Date.parse(at));
  });

  it('does not retry when the wait would not fit the run deadline', async () => {
    stub.load({
      roles: { 'intent-router': [{ error: 429, retry_after: '3600' }, { content: 'DIAGNOSIS' }] },
    });
    const started = Date.now();
    const response = await ask();
    expect(response.events[2].data).toMatchObject({ code: 'MODEL_RATE_LIMITED' });
    expect(stub.requestsFor('intent-router')).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});

describe('the start-up provider check', () => {
  it.each([
    [
      'a rejected key',
      { api_key: 'sk-the-right-key-000000' },
      401,
      'the provider rejected LLM_API_KEY (401)',
    ],
    [
      'an unknown model',
      { models: ['deepseek-reasoner'] },
      200,
      "model deepseek-chat not found in the provider's model list",
    ],
  ])(
    'reports %s as llm: down in /health, and the service still starts',
    async (_name, script, status, message) => {
      const provider = new StubLlmServer({ roles: {}, ...script });
      const errors = jest.spyOn(Logger.prototype, 'error');
      const running = await startApp({ LLM_BASE_URL: await provider.start(), LLM_STARTUP_CHECK: 'models' });
      try {
        const response = await fetch(`${running.baseUrl}/health`);
        expect(response.status).toBe(503);
        const body = (await response.json()) as { details: Record<string, Record<string, unknown>> };
        expect(body.details.llm).toMatchObject({ status: 'down', http_status: status, message });
        expect(body.details.mysql).toMatchObject({ status: 'up' });
        expect(errors.mock.calls.map(([line]) => String(line))).toContain(
          `LLM provider check failed: ${message}`,
        );
        expect(provider.requests).toHaveLength(0);
      } finally {
        await running.close();
        await provider.stop();
      }
    },
  );

  it('fails a chat at once, under the named cause, while the check knows the provider is down', async () => {
    const provider = new StubLlmServer({
      roles: { 'intent-router': [{ content: 'DIAGNOSIS' }] },
      api_key: 'sk-the-right-key-000000',
    });
    const running = await startApp({ LLM_BASE_URL: await provider.start(), LLM_STARTUP_CHECK: 'models' });
    try {
      const health = (await (await fetch(`${running.baseUrl}/health`)).json()) as {
        details: Record<string, Record<string, unknown>>;
      };
      expect(health.details.llm).toMatchObject({ status: 'down', code: 'MODEL_AUTH_FAILED' });
      const response = await postChat(running.baseUrl, { query: 'order-123 payment times out' });
      expect(response.events[2]).toMatchObject({ event: 'failure', data: { code: 'MODEL_AUTH_FAILED' } });
      // No completion was even attempted: the provider is known to refuse the key.
      expect(provider.requests).toHaveLength(0);
    } finally {
      await running.close();
      await provider.stop();
    }
  });

  it('reports llm: up when the key and model are accepted', async () => {
    const provider = new StubLlmServer({ roles: {}, models: ['deepseek-chat'] });
    const running = await startApp({ LLM_BASE_URL: await provider.start(), LLM_STARTUP_CHECK: 'models' });
    try {
      const response = await fetch(`${running.baseUrl}/health`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { details: Record<string, Record<string, unknown>> };
      expect(body.details.llm).toMatchObject({ status: 'up', http_status: 200 });
    } finally {
      await running.close();
      await provider.stop();
    }
  });
});

describe('servers that omit usage or name reasoning differently', () => {
  it('estimates tokens when usage is absent and marks the figure as estimated', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS', omit_usage: true }],
        ...diagnosis(),
      },
    });
    const response = await ask();
    const runId = runIdOf(response.events);
    const [step] = await rows(
      "SELECT input_tokens, output_tokens FROM agent_step WHERE run_id = ? AND role = 'intent-router'",
      [runId],
    );
    expect(step.input_tokens).toBeGreaterThan(0);
    expect(step.output_tokens).toBeGreaterThan(0);
    const events = await rows(
      "SELECT details FROM diagnosis_trace_event WHERE run_id = ? AND phase = 'ROUTING' AND event_type = 'MODEL_STEP'",
      [runId],
    );
    const details = events.map((row) =>
      typeof row.details === 'string' ? JSON.parse(row.details) : row.details,
    );
    expect(details[0]).toMatchObject({ tokens_estimated: true });
    const [run] = await rows('SELECT input_tokens FROM diagnosis_run WHERE run_id = ?', [runId]);
    expect(run.input_tokens).toBeGreaterThan(0);
  });

  it('keeps a `reasoning` field (vLLM, Ollama) as provider reasoning in the audit', async () => {
    stub.load({
      profile: 'vllm-reasoning',
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS', reasoning_content: 'VLLM-THOUGHT about routing' }],
        ...diagnosis(),
      },
    });
    const response = await ask();
    const [audit] = await rows(
      `SELECT a.content_source, a.reasoning_content FROM agent_reasoning_audit a
       JOIN agent_step s ON s.run_id = a.run_id AND s.step_index = a.step_index
       WHERE a.run_id = ? AND s.role = 'intent-router'`,
      [runIdOf(response.events)],
    );
    // The stored text is encrypted at rest; its source says the provider sent it.
    expect(audit.content_source).toBe('PROVIDER_REASONING');
    expect(audit.reasoning_content).not.toBeNull();
  });
});

describe("OpenRouter's reasoning_details", () => {
  it('are sent back on every later turn, so a provider that requires them accepts the run', async () => {
    stub.load({
      profile: 'openrouter-reasoning',
      roles: { 'intent-router': [{ content: 'DIAGNOSIS' }], ...diagnosis() },
    });
    const response = await ask();
    expect(outcomeOf(response.events)).toEqual({ outcome: 'SUCCESS' });
    const [, second] = stub.requestsFor('diagnosis-agent');
    const assistant: unknown = second.body.messages?.find((message) => message.role === 'assistant');
    expect((assistant as { reasoning_details?: unknown }).reasoning_details).toEqual([
      expect.objectContaining({ type: 'reasoning.text' }),
    ]);
  });
});

describe('a final answer with prose before unfenced JSON', () => {
  it('publishes the one unambiguous object without a repair call', async () => {
    const [plan] = agentTurns(draftJson());
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [plan, { content: `根据以上调查结果，结论如下：\n${draftJson()}` }],
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await ask();
    expect(outcomeOf(response.events)).toEqual({ outcome: 'SUCCESS' });
    expect(stub.requestsFor('evidence-repair')).toHaveLength(0);
  });
});

/** The router's first call answers with this provider failure; the run must end named, not retried. */
describe('every final provider failure is named to the user and the operator', () => {
  it.each([
    [
      "Azure's 401",
      {
        error: 401,
        body: {
          error: {
            code: '401',
            message: 'Access denied due to invalid subscription key or wrong API endpoint.',
          },
        },
      },
      'MODEL_AUTH_FAILED',
      401,
      'Access denied',
    ],
    [
      "Gemini's 400 with an array body",
      {
        error: 400,
        body: [
          {
            error: {
              code: 400,
              message: 'API key not valid. Please pass a valid API key.',
              status: 'INVALID_ARGUMENT',
              details: [{ reason: 'API_KEY_INVALID' }],
            },
          },
        ],
      },
      'MODEL_AUTH_FAILED',
      400,
      'API key not valid',
    ],
    [
      "DeepSeek's 402",
      {
        error: 402,
        error_message: 'Insufficient Balance',
        error_type: 'unknown_error',
        error_code: 'invalid_request_error',
      },
      'MODEL_QUOTA_EXHAUSTED',
      402,
      'Insufficient Balance',
    ],
    [
      'a 429 insufficient_quota',
      {
        error: 429,
        error_message: 'You exceeded your current quota, please check your plan and billing details.',
        error_type: 'insufficient_quota',
        error_code: 'insufficient_quota',
      },
      'MODEL_QUOTA_EXHAUSTED',
      429,
      'exceeded your current quota',
    ],
    [
      "vLLM's unknown model (top-level body)",
      {
        error: 404,
        body: {
          object: 'error',
          message: 'The model `deepseek-chat` does not exist.',
          type: 'NotFoundError',
          param: null,
          code: 404,
        },
      },
      'MODEL_NOT_FOUND',
      404,
      'does not exist',
    ],
    [
      "Azure's 400 content_filter",
      {
        error: 400,
        body: {
          error: {
            message:
              "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
            type: null,
            param: 'prompt',
            code: 'content_filter',
            status: 400,
          },
        },
      },
      'MODEL_CONTENT_FILTERED',
      400,
      'content management policy',
    ],
    [
      'a 200 stopped by the content filter with nothing written',
      { content: '', finish_reason: 'content_filter' },
      'MODEL_CONTENT_FILTERED',
      200,
      null,
    ],
    [
      'a 400 context_length_exceeded',
      {
        error: 400,
        error_message: "This model's maximum context length is 8192 tokens.",
        error_type: 'invalid_request_error',
        error_code: 'context_length_exceeded',
      },
      'MODEL_CONTEXT_TOO_LONG',
      400,
      'maximum context length',
    ],
    [
      'an HTTP 200 whose body is an error (gateway)',
      { body: { error: { code: 402, message: 'Insufficient credits' } } },
      'MODEL_QUOTA_EXHAUSTED',
      200,
      'Insufficient credits',
    ],
    [
      'a 404 HTML page (wrong base URL)',
      { error: 404, body: '<html><body>Not Found</body></html>' },
      'MODEL_ENDPOINT_INVALID',
      404,
      'Not Found',
    ],
  ])('%s → %s, not retried', async (_name, reply, code, status, said) => {
    stub.load({ roles: { 'intent-router': [reply, { content: 'DIAGNOSIS' }] } });
    let events: SseEvent[] = [];
    const lines = await warnLines(async () => (events = (await ask()).events));
    expect(events[2]).toMatchObject({ event: 'failure', data: { code } });
    // A final class never tells the user to try again later.
    expect(String(events[2].data.message)).not.toMatch(/try again|稍后重试/i);
    expect(stub.requestsFor('intent-router')).toHaveLength(1);
    const [line] = lines.filter((entry) => entry.role === 'intent-router');
    expect(line).toMatchObject({ error_code: code, http_status: status, transient: false });
    if (said !== null) expect(String(line.provider_message)).toContain(said);
    const [run] = await rows('SELECT status, error_code FROM diagnosis_run WHERE run_id = ?', [
      runIdOf(events),
    ]);
    expect(run).toMatchObject({ status: 'FAILED', error_code: code });
  });
});

describe('waits the rate-limit headers ask for', () => {
  it.each([
    ['retry-after-ms', { 'retry-after-ms': '900' }, 900],
    [
      'x-ratelimit-reset-requests',
      { 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-remaining-requests': '0' },
      1000,
    ],
  ])('%s', async (_name, headers, wait) => {
    stub.load({
      roles: { 'intent-router': [{ error: 429, headers }, { content: 'DIAGNOSIS' }], ...diagnosis() },
    });
    const response = await ask();
    expect(outcomeOf(response.events)).toEqual({ outcome: 'SUCCESS' });
    const [first, second] = stub.requestsFor('intent-router');
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(wait);
  });
});

describe('tool calls as local servers and other models send them', () => {
  const LOG_ARGS = { topic: 'APPLICATION', query: 'order-service HikariPool', lookback_minutes: 30 };
  /** The agent's first turn replaced by `first`; the final draft cites `cite`. */
  const agent = (first: StubReply, cite: string) => {
    const [plan] = agentTurns(draftJson({ cite: [cite] }));
    return [{ ...plan, ...first }, { content: draftJson({ cite: [cite] }) }];
  };
  it.each([
    [
      'arguments as a JSON object',
      {
        tool_calls: [
          { id: 'call_logs_1', name: 'query_logs', arguments: LOG_ARGS, arguments_as_object: true },
        ],
      },
      'call_logs_1',
    ],
    [
      "a name with gpt-oss's functions. prefix",
      { tool_calls: [{ id: 'call_logs_1', name: 'functions.query_logs', arguments: LOG_ARGS }] },
      'call_logs_1',
    ],
    [
      'a name in another case',
      { tool_calls: [{ id: 'call_logs_1', name: 'Query_Logs', arguments: LOG_ARGS }] },
      'call_logs_1',
    ],
    ['a call without an id', { tool_calls: [{ name: 'query_logs', arguments: LOG_ARGS }] }, 'call_auto_0_0'],
    [
      'Hermes/Qwen <tool_call> text',
      {
        tool_calls: undefined,
        content: `<tool_call>\n${JSON.stringify({ name: 'query_logs', arguments: LOG_ARGS })}\n</tool_call>`,
      },
      'call_auto_0_0',
    ],
    [
      'Mistral [TOOL_CALLS] text',
      {
        tool_calls: undefined,
        content: `[TOOL_CALLS] ${JSON.stringify([{ name: 'query_logs', arguments: LOG_ARGS }])}`,
      },
      'call_auto_0_0',
    ],
    [
      'Llama <|python_tag|> text',
      {
        tool_calls: undefined,
        content: `<|python_tag|>${JSON.stringify({ name: 'query_logs', parameters: LOG_ARGS })}`,
      },
      'call_auto_0_0',
    ],
  ])('%s: the tool runs and the report is released', async (_name, first, cite) => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agent(first as StubReply, cite),
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await ask();
    expect(outcomeOf(response.events)).toEqual({ outcome: 'SUCCESS' });
    const [call] = await rows('SELECT tool_name, tool_call_id FROM tool_invocation WHERE run_id = ?', [
      runIdOf(response.events),
    ]);
    expect(call).toMatchObject({ tool_name: 'query_logs', tool_call_id: cite });
  });

  it('an empty report after every call was refused is a FALLBACK, never SUCCESS', async () => {
    const empty = JSON.stringify({
      conclusion: null,
      analysis: [],
      action_plan: [],
      recommendations: [],
      limitations: { scope: '', missing_info: [] },
    });
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agent(
          { tool_calls: [{ id: 'call_x', name: 'no_such_tool', arguments: {} }] },
          'call_x',
        ).map((reply, index) => (index === 1 ? { content: empty } : reply)),
      },
    });
    const response = await ask();
    expect(outcomeOf(response.events)).toEqual({ outcome: 'FALLBACK' });
    const [run] = await rows('SELECT status, fallback_reason FROM diagnosis_run WHERE run_id = ?', [
      runIdOf(response.events),
    ]);
    expect(run).toMatchObject({ status: 'FALLBACK', fallback_reason: 'DRAFT_EMPTY' });
  });

  it('a report that stays unreadable is a FALLBACK under its own reason', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns('I was unable to write the report.'),
        'evidence-repair': [{ content: 'Still no JSON, sorry.' }],
      },
    });
    const response = await ask();
    expect(outcomeOf(response.events)).toEqual({ outcome: 'FALLBACK' });
    const [run] = await rows('SELECT fallback_reason FROM diagnosis_run WHERE run_id = ?', [
      runIdOf(response.events),
    ]);
    expect(run.fallback_reason).toBe('DRAFT_UNREADABLE');
  });
});

describe('a model that repeats the same tool call', () => {
  const repeat = (id: string) => ({
    content: '',
    tool_calls: [
      {
        id,
        name: 'query_logs',
        arguments: { topic: 'APPLICATION', query: 'order-service HikariPool timeout', lookback_minutes: 30 },
      },
    ],
  });
  it('gets the first result back without a second execution, and a loop is stopped under its own reason', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [repeat('call_1'), repeat('call_2'), repeat('call_3'), repeat('call_4')],
      },
    });
    const response = await ask();
    expect(outcomeOf(response.events)).toEqual({ outcome: 'FALLBACK' });
    const runId = runIdOf(response.events);
    const [run] = await rows('SELECT fallback_reason FROM diagnosis_run WHERE run_id = ?', [runId]);
    expect(run.fallback_reason).toBe('AGENT_LOOP_REPEATED');
    expect(await rows('SELECT tool_call_id FROM tool_invocation WHERE run_id = ?', [runId])).toHaveLength(1);
    // Three model calls: the call, one repeat answered from the record, the repeat that stops the loop.
    expect(stub.requestsFor('diagnosis-agent')).toHaveLength(3);
    const toolMessages = stub
      .requestsFor('diagnosis-agent')[2]
      .body.messages?.filter((message) => message.role === 'tool');
    expect(String(toolMessages?.at(-1)?.content)).toContain('"same_as_tool_call_id":"call_1"');
  });
});
