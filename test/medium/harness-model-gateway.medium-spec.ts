import { HumanMessage } from '@langchain/core/messages';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import {
  BudgetExhausted,
  GatewayChatModel,
  HarnessRetryExecutor,
  HarnessToolNode,
  InvalidModelOutput,
  InvocationStore,
  ModelCallFailed,
  ModelGateway,
  RetryExhausted,
  RunCancelled,
  ToolBoundary,
  bindHarnessTools,
} from '@app/harness';
import { AgentStepRepository, RunRepository, TimelineRepository } from '@app/trace';
import { fakeLogTool } from '../support/fake-tools';
import { createHarnessFixture, HarnessFixture, startTestRun } from '../support/harness-fixture';

describe('Harness model gateway, retry executor and the prebuilt ReAct loop (stub LLM, real MySQL/Redis)', () => {
  let fixture: HarnessFixture;
  let gateway: ModelGateway;
  let steps: AgentStepRepository;

  beforeAll(async () => {
    fixture = await createHarnessFixture({ harnessEnv: { HARNESS_MODEL_CALL_TIMEOUT_MS: '500' } });
    gateway = fixture.app.get(ModelGateway);
    steps = fixture.app.get(AgentStepRepository);
  });
  afterAll(() => fixture.close());
  beforeEach(() => {
    fixture.stub.requests.length = 0;
  });

  it('records tokens, an agent_step row and the provider reasoning when the provider returns it', async () => {
    fixture.stub.load({
      // lenient: a provider that sends reasoning on one reply and none on the next
      profile: 'lenient',
      roles: {
        'system-chat': [
          {
            content: 'hello',
            reasoning_content: 'REASONING-MARKER-1',
            usage: { prompt_tokens: 40, completion_tokens: 5 },
          },
          { content: 'again', usage: { prompt_tokens: 50, completion_tokens: 7 } },
        ],
      },
    });
    const ctx = await startTestRun(fixture);
    await gateway.invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('hi')] });
    await gateway.invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('hi again')] });

    expect(ctx.budget.totals()).toMatchObject({
      modelCalls: 2,
      inputTokens: 90,
      outputTokens: 12,
      totalTokens: 102,
    });
    await ctx.journal.flush();
    expect(await steps.listSteps(ctx.runId)).toEqual([
      expect.objectContaining({
        stepIndex: 1,
        role: 'system-chat',
        status: 'OK',
        inputTokens: 40,
        outputTokens: 5,
        finishReason: 'stop',
      }),
      expect.objectContaining({ stepIndex: 2, status: 'OK', inputTokens: 50, outputTokens: 7 }),
    ]);
    expect(await steps.listReasoning(ctx.runId)).toEqual([
      expect.objectContaining({
        stepIndex: 1,
        contentSource: 'PROVIDER_REASONING',
        reasoningContent: 'REASONING-MARKER-1',
        assistantText: 'hello',
      }),
      expect.objectContaining({
        stepIndex: 2,
        contentSource: 'ASSISTANT_TEXT_ONLY',
        reasoningContent: null,
        assistantText: 'again',
      }),
    ]);
    const [request] = fixture.stub.requestsFor('system-chat');
    expect(String(request.body.messages?.[0].content)).toMatch(/^<!-- role: system-chat -->/);
    ctx.close();
  });

  it('stops at the model-call budget and records the limit on the run', async () => {
    fixture.stub.load({ repeat: true, roles: { 'system-chat': [{ content: 'ok' }] } });
    const ctx = await startTestRun(fixture, { limits: { maxModelCalls: 2 } });
    await gateway.invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('1')] });
    await gateway.invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('2')] });
    await expect(
      gateway.invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('3')] }),
    ).rejects.toEqual(new BudgetExhausted('MODEL_CALLS'));
    expect(fixture.stub.requests).toHaveLength(2);
    await ctx.journal.flush();
    expect((await fixture.app.get(RunRepository).findRun(ctx.runId))?.budgetExhaustedReason).toBe(
      'MODEL_CALLS',
    );
    const timeline = await fixture.app.get(TimelineRepository).listForRun(ctx.runId);
    expect(timeline.map((event) => [event.phase, event.eventType, event.details?.status ?? null])).toEqual([
      ['AGENT', 'MODEL_STEP', 'OK'],
      ['AGENT', 'MODEL_STEP', 'OK'],
      ['BUDGET', 'BUDGET_EXHAUSTED', null],
    ]);
    expect(timeline[2].details).toEqual({ limit: 'MODEL_CALLS' });
    ctx.close();
  });

  it.each([
    ['HTTP 500', { error: 500 }, 'TRANSPORT', 'MODEL_UNAVAILABLE'],
    ['HTTP 429', { error: 429 }, 'TRANSPORT', 'MODEL_RATE_LIMITED'],
    [
      'a reply slower than the per-call timeout',
      { delay_ms: 3000, content: 'late' },
      'TIMEOUT',
      'MODEL_TIMEOUT',
    ],
  ])(
    'maps %s to a safe failure, makes one attempt and audits it as UNAVAILABLE',
    async (_name, reply, kind, code) => {
      fixture.stub.load({ roles: { 'system-chat': [reply] } });
      const ctx = await startTestRun(fixture);
      const failure = gateway.invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('hi')] });
      await expect(failure).rejects.toBeInstanceOf(ModelCallFailed);
      await expect(failure).rejects.toMatchObject({ kind, code });
      expect(fixture.stub.requests).toHaveLength(1);
      await ctx.journal.flush();
      expect(await steps.listSteps(ctx.runId)).toEqual([
        expect.objectContaining({ status: 'ERROR', errorCode: code }),
      ]);
      expect(await steps.listReasoning(ctx.runId)).toEqual([
        expect.objectContaining({
          contentSource: 'UNAVAILABLE',
          reasoningContent: null,
          assistantText: null,
        }),
      ]);
      ctx.close();
    },
  );

  it('aborts an in-flight model call when the client goes away', async () => {
    fixture.stub.load({ roles: { 'system-chat': [{ delay_ms: 3000, content: 'late' }] } });
    const client = new AbortController();
    const ctx = await startTestRun(fixture, { parentSignal: client.signal });
    setTimeout(() => client.abort(), 100);
    const started = Date.now();
    await expect(
      gateway.invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('hi')] }),
    ).rejects.toBeInstanceOf(RunCancelled);
    expect(Date.now() - started).toBeLessThan(2500);
    await ctx.journal.flush();
    expect(await steps.listSteps(ctx.runId)).toEqual([
      expect.objectContaining({ status: 'ERROR', errorCode: 'CANCELLED' }),
    ]);
    ctx.close();
  });

  describe('HarnessRetryExecutor', () => {
    const route = (ctx: Awaited<ReturnType<typeof startTestRun>>) =>
      fixture.app.get(HarnessRetryExecutor).execute(ctx, 'intent_router', async (attempt) => {
        const reply = await gateway.invoke(ctx, {
          role: 'intent-router',
          messages: [new HumanMessage('q')],
          attempt,
        });
        if (!['SYSTEM_CHAT', 'KNOWLEDGE_QUERY', 'DIAGNOSIS'].includes(String(reply.content)))
          throw new InvalidModelOutput('INTENT_OUT_OF_ENUM');
        return String(reply.content);
      });

    it('retries a transport failure once and records every attempt in the timeline', async () => {
      fixture.stub.load({ roles: { 'intent-router': [{ error: 500 }, { content: 'DIAGNOSIS' }] } });
      const ctx = await startTestRun(fixture);
      await expect(route(ctx)).resolves.toBe('DIAGNOSIS');
      await ctx.journal.flush();
      const timeline = await fixture.app.get(TimelineRepository).listForRun(ctx.runId);
      const attempts = timeline.filter((event) => event.eventType === 'ATTEMPT');
      expect(attempts.map((event) => [event.phase, event.details])).toEqual([
        ['ROUTING', { operation: 'intent_router', attempt: 1, outcome: 'MODEL_UNAVAILABLE' }],
        ['ROUTING', { operation: 'intent_router', attempt: 2, outcome: 'OK' }],
      ]);
      expect((await steps.listSteps(ctx.runId)).map((step) => step.attempt)).toEqual([1, 2]);
      ctx.close();
    });

    it('gives up after the matrix allows (2 attempts) on invalid output', async () => {
      fixture.stub.load({
        roles: { 'intent-router': [{ content: 'MAYBE' }, { content: 'PERHAPS' }, { content: 'DIAGNOSIS' }] },
      });
      const ctx = await startTestRun(fixture);
      const failure = route(ctx);
      await expect(failure).rejects.toBeInstanceOf(RetryExhausted);
      await expect(failure).rejects.toMatchObject({ attempts: 2, lastFailure: 'INVALID_OUTPUT' });
      expect(fixture.stub.requests).toHaveLength(2);
      ctx.close();
    });

    it('never retries budget exhaustion', async () => {
      fixture.stub.load({ repeat: true, roles: { 'intent-router': [{ content: 'DIAGNOSIS' }] } });
      const ctx = await startTestRun(fixture, { limits: { maxModelCalls: 1 } });
      await route(ctx);
      await expect(route(ctx)).rejects.toBeInstanceOf(BudgetExhausted);
      expect(fixture.stub.requests).toHaveLength(1);
      ctx.close();
    });
  });

  it('runs the prebuilt ReAct loop with every model call through the gateway and every tool call through the boundary (strict deepseek-thinking)', async () => {
    fixture.stub.load({
      profile: 'deepseek-thinking',
      roles: {
        'diagnosis-agent': [
          {
            content: '1. check logs\n2. check the knowledge base',
            tool_calls: [
              { id: 'call_a', name: 'query_logs', arguments: { query: 'HikariPool', count: 2 } },
              { id: 'call_b', name: 'query_logs', arguments: { query: 'timeout', count: 0 } },
            ],
          },
          {
            content: '',
            tool_calls: [{ id: 'call_a', name: 'query_logs', arguments: { query: 'again', count: 1 } }],
          },
          { content: '{"conclusion": null}' },
        ],
      },
    });
    const ctx = await startTestRun(fixture);
    const agent = createReactAgent({
      llm: new GatewayChatModel(gateway, ctx, 'diagnosis-agent'),
      tools: new HarnessToolNode(
        fixture.app.get(ToolBoundary),
        ctx,
        bindHarnessTools(fixture.app.get(ToolBoundary), ctx, [fakeLogTool()]),
      ),
    });
    const output = await agent.invoke(
      { messages: [new HumanMessage('order-123 payment times out')] },
      { signal: ctx.signal, recursionLimit: 10 },
    );

    const toolMessages = output.messages.filter((message) => message.getType() === 'tool');
    expect(toolMessages.map((message) => JSON.parse(String(message.content)))).toEqual([
      expect.objectContaining({ tool_call_id: 'call_a', evidence_status: 'EVIDENCE_FOUND' }),
      expect.objectContaining({ tool_call_id: 'call_b', evidence_status: 'NO_EVIDENCE' }),
      // the reused id runs under its run-unique form; the first call_a is never overwritten
      expect.objectContaining({ tool_call_id: 'call_a.2', evidence_status: 'EVIDENCE_FOUND' }),
    ]);
    expect(output.messages.at(-1)?.content).toBe('{"conclusion": null}');
    await ctx.journal.flush();
    expect(await steps.listSteps(ctx.runId)).toHaveLength(3);
    expect(await fixture.app.get(InvocationStore).getReady(ctx.runId, 'call_a')).toMatchObject({
      request: { query: 'HikariPool', count: 2 },
    });

    expect(await fixture.app.get(InvocationStore).getReady(ctx.runId, 'call_a.2')).toMatchObject({
      request: { query: 'again', count: 1 },
    });

    const [, second, third] = fixture.stub.requestsFor('diagnosis-agent');
    expect(
      (third.body.messages ?? []).filter((message) => message.role === 'tool').map((m) => m.tool_call_id),
    ).toEqual(['call_a', 'call_b', 'call_a.2']);
    const sentToolResults = (second.body.messages ?? []).filter((message) => message.role === 'tool');
    expect(sentToolResults.map((message) => message.tool_call_id)).toEqual(['call_a', 'call_b']);
    expect(JSON.stringify(second.body)).not.toContain('RAW-ONLY-MARKER');
    // every earlier assistant turn goes back with the reasoning the provider returned for it
    const sentReasoning = (third.body.messages ?? [])
      .filter((message) => message.role === 'assistant')
      .map((message) => (message as { reasoning_content?: string }).reasoning_content);
    expect(sentReasoning).toEqual([
      'stub reasoning of diagnosis-agent, turn 0',
      'stub reasoning of diagnosis-agent, turn 1',
    ]);
    for (const request of fixture.stub.requestsFor('diagnosis-agent')) {
      expect(request.body.max_tokens).toEqual(expect.any(Number));
    }
    ctx.close();
  });

  it('bounds every call with max_tokens: the role cap, lowered to what is left of the output budget', async () => {
    fixture.stub.load({
      profile: 'openai',
      roles: {
        'system-chat': [
          { content: 'a'.repeat(400), usage: { prompt_tokens: 10, completion_tokens: 150 } },
          { content: 'b'.repeat(400) },
        ],
      },
    });
    const ctx = await startTestRun(fixture, { limits: { maxOutputTokens: 200 } });
    await gateway.invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('1')] });
    const cut = await gateway.invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('2')] });

    const [first, second] = fixture.stub.requestsFor('system-chat');
    expect(first.body.max_tokens).toBe(200); // the role cap (2048) is above the whole budget
    expect(second.body.max_tokens).toBe(50); // 200 - 150 already used
    // the strict provider honours it: the reply is cut and says so
    expect(String(cut.content)).toHaveLength(200);
    await ctx.journal.flush();
    expect(await steps.listSteps(ctx.runId)).toEqual([
      expect.objectContaining({ stepIndex: 1, finishReason: 'stop' }),
      expect.objectContaining({ stepIndex: 2, finishReason: 'length', outputTokens: 50 }),
    ]);
    ctx.close();
  });
});

describe('Provider knobs from validated config reach every request', () => {
  let fixture: HarnessFixture;

  beforeAll(async () => {
    fixture = await createHarnessFixture({
      llmEnv: {
        LLM_EXTRA_BODY: '{"thinking":{"type":"enabled"}}',
        LLM_REASONING_EFFORT: 'high',
        LLM_TEMPERATURE: '0.2',
        LLM_SYSTEM_CHAT_MAX_TOKENS: '77',
      },
    });
  });
  afterAll(() => fixture.close());

  it('merges LLM_EXTRA_BODY and sends reasoning_effort, temperature and the role max_tokens', async () => {
    fixture.stub.load({ roles: { 'system-chat': [{ content: 'ok' }] } });
    const ctx = await startTestRun(fixture);
    await fixture.app
      .get(ModelGateway)
      .invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('hi')] });
    const [request] = fixture.stub.requestsFor('system-chat');
    expect(request.body).toMatchObject({
      thinking: { type: 'enabled' },
      reasoning_effort: 'high',
      temperature: 0.2,
      max_tokens: 77,
    });
    ctx.close();
  });
});
