import { draftJson, SUPPORTED, UNSUPPORTED } from '@test/support/diagnosis-scripts';
import type { StubReply } from '@test/support/stub-llm/stub-script';
import { RunCancelled } from '@app/harness';
import { chatKit, KNOWLEDGE_DOC, recordingStream } from '@test/support/unit-chat';
import { agentTurnsOnFakeLogs } from '@test/support/unit-diagnosis';
import { SYSTEM_CHAT_CAPABILITIES, UnknownSession } from './chat-application.use-case';
import type { ChatEvent } from './sse/chat-events';

const KEY = 'a'.repeat(64);
const GROUNDED = draftJson({ cite: ['call_logs_1'] });
const route = (intent: string): StubReply[] => [{ content: intent }];
const knowledgeReply = {
  content: JSON.stringify({
    answer: 'Find the connection leak before raising maximumPoolSize.',
    references: ['doc-1'],
  }),
};

async function chat(
  roles: Record<string, StubReply[]>,
  options: Parameters<typeof chatKit>[1] & {
    finish?: 'STORED' | 'NOT_RUNNING' | 'FAILS';
    sessionId?: string;
    notify?: string[];
    prepare?: (kit: ReturnType<typeof chatKit>) => void;
    clientSignal?: AbortSignal;
  } = {},
) {
  const kit = chatKit(roles, options);
  kit.journal.finishAnswer = options.finish ?? 'STORED';
  options.prepare?.(kit);
  const { stream, events } = recordingStream();
  await kit.useCase.handle(
    await kit.useCase.open({
      query: 'order-123 payment times out',
      ownerKeyDigest: KEY,
      sessionId: options.sessionId,
      notify: options.notify,
    }),
    stream,
    options.clientSignal ?? new AbortController().signal,
  );
  return { kit, events, finished: kit.journal.finished };
}

const shape = (events: ChatEvent[]) =>
  events.map((event) =>
    event.event === 'content'
      ? `content:${event.data.content_type}`
      : event.event === 'failure'
        ? `failure:${event.data.code}`
        : event.event === 'done'
          ? `done:${event.data.outcome}`
          : event.event,
  );
const terminalOf = (events: ChatEvent[]) => shape(events).filter((name) => name !== 'status');

/** The runs_finished series that moved, as `intent/outcome/reason` with their counts. */
async function runEnds(kit: ReturnType<typeof chatKit>): Promise<string[]> {
  const metric = (await kit.metrics.registry.getMetricsAsJSON()).find(
    (candidate) => candidate.name === 'superbiz_runs_finished_total',
  );
  return (metric?.values ?? [])
    .filter((sample) => sample.value > 0)
    .map(({ labels, value }) => `${labels.intent}/${labels.outcome}/${labels.reason}=${value}`);
}

/** What the client heard, as the metrics count it: the done outcome and the fallback type or failure code. */
function heardEnd(events: ChatEvent[]): string {
  const done = events.find((event) => event.event === 'done');
  const failure = events.find((event) => event.event === 'failure');
  const content = events.find((event) => event.event === 'content');
  const reason =
    failure?.event === 'failure'
      ? failure.data.code
      : content?.event === 'content' && content.data.content_type === 'FALLBACK'
        ? content.data.payload.type
        : 'NONE';
  return `${done?.event === 'done' ? done.data.outcome : 'none'}/${reason}=1`;
}

/** Every way a run ends: what MySQL stores and what the client hears, in order. */
const CASES: {
  name: string;
  roles: Record<string, StubReply[]>;
  knowledge?: (typeof KNOWLEDGE_DOC)[] | 'FAILS';
  harnessEnv?: Record<string, string>;
  terminal: Record<string, unknown>;
  events: string[];
}[] = [
  {
    name: 'SYSTEM_CHAT answered',
    roles: {
      'intent-router': route('SYSTEM_CHAT'),
      'system-chat': [{ content: 'Hello, I diagnose faults.' }],
    },
    terminal: { status: 'SUCCESS', releaseOutcome: 'SUCCESS' },
    events: ['metadata', 'content:SYSTEM_ANSWER', 'done:SUCCESS'],
  },
  {
    name: 'SYSTEM_CHAT provider down',
    roles: { 'intent-router': route('SYSTEM_CHAT'), 'system-chat': [{ error: 500 }] },
    terminal: { status: 'FAILED', errorCode: 'MODEL_UNAVAILABLE' },
    events: ['metadata', 'failure:MODEL_UNAVAILABLE', 'done:FAILED'],
  },
  {
    name: 'KNOWLEDGE_QUERY supported',
    roles: {
      'intent-router': route('KNOWLEDGE_QUERY'),
      'knowledge-answer': [knowledgeReply],
      'knowledge-guard': [SUPPORTED],
    },
    knowledge: [KNOWLEDGE_DOC],
    terminal: { status: 'SUCCESS', releaseOutcome: 'SUCCESS' },
    events: ['metadata', 'content:KNOWLEDGE_ANSWER', 'done:SUCCESS'],
  },
  {
    name: 'KNOWLEDGE_QUERY refused by the reviewer',
    roles: {
      'intent-router': route('KNOWLEDGE_QUERY'),
      'knowledge-answer': [knowledgeReply],
      'knowledge-guard': [UNSUPPORTED],
    },
    knowledge: [KNOWLEDGE_DOC],
    terminal: { status: 'FALLBACK', releaseOutcome: 'FALLBACK', fallbackReason: 'KNOWLEDGE_UNSUPPORTED' },
    events: ['metadata', 'content:FALLBACK', 'done:FALLBACK'],
  },
  {
    name: 'KNOWLEDGE_QUERY with nothing found',
    roles: { 'intent-router': route('KNOWLEDGE_QUERY') },
    knowledge: [],
    terminal: { status: 'SUCCESS', releaseOutcome: 'SUCCESS' },
    events: ['metadata', 'content:KNOWLEDGE_ANSWER', 'done:SUCCESS'],
  },
  {
    name: 'KNOWLEDGE_QUERY whose lookup fails',
    roles: { 'intent-router': route('KNOWLEDGE_QUERY') },
    knowledge: 'FAILS',
    terminal: { status: 'FAILED', errorCode: 'KNOWLEDGE_UNAVAILABLE' },
    events: ['metadata', 'failure:KNOWLEDGE_UNAVAILABLE', 'done:FAILED'],
  },
  {
    name: 'DIAGNOSIS released',
    roles: {
      'intent-router': route('DIAGNOSIS'),
      'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED),
      'semantic-guard': [SUPPORTED],
    },
    terminal: {
      status: 'SUCCESS',
      releaseOutcome: 'SUCCESS',
      conclusion: expect.stringContaining('HikariCP'),
    },
    events: ['metadata', 'content:DIAGNOSIS_REPORT', 'done:SUCCESS'],
  },
  {
    name: 'DIAGNOSIS fallback',
    roles: {
      'intent-router': route('DIAGNOSIS'),
      'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED),
      'semantic-guard': [UNSUPPORTED],
    },
    terminal: { status: 'FALLBACK', releaseOutcome: 'FALLBACK', fallbackReason: 'SEMANTIC_UNSUPPORTED' },
    events: ['metadata', 'content:FALLBACK', 'done:FALLBACK'],
  },
  {
    name: 'DIAGNOSIS agent provider down',
    roles: { 'intent-router': route('DIAGNOSIS'), 'diagnosis-agent': [{ error: 502 }] },
    terminal: { status: 'FAILED', errorCode: 'MODEL_UNAVAILABLE' },
    events: ['metadata', 'failure:MODEL_UNAVAILABLE', 'done:FAILED'],
  },
  {
    name: 'DIAGNOSIS agent over its model-call budget',
    roles: {
      'intent-router': route('DIAGNOSIS'),
      'diagnosis-agent': Array.from({ length: 4 }, (_, i) => ({
        content: '',
        tool_calls: [{ id: `call_${i}`, name: 'query_logs', arguments: { query: 'x', count: 1 } }],
      })),
    },
    harnessEnv: {
      HARNESS_AGENT_MAX_MODEL_CALLS: '2',
      HARNESS_AGENT_MAX_CALLS_PER_TOOL: '2',
      HARNESS_AGENT_MAX_TOOL_CALLS: '2',
    },
    terminal: { status: 'FAILED', errorCode: 'BUDGET_MODEL_CALLS' },
    events: ['metadata', 'failure:BUDGET_EXHAUSTED', 'done:FAILED'],
  },
  {
    name: 'a router that never names an intent',
    roles: { 'intent-router': [{ content: 'maybe' }, { content: 'perhaps' }] },
    terminal: { status: 'FAILED', errorCode: 'ROUTING_UNAVAILABLE' },
    events: ['metadata', 'failure:ROUTING_UNAVAILABLE', 'done:FAILED'],
  },
  {
    name: 'the run deadline during routing',
    roles: { 'intent-router': [{ content: 'DIAGNOSIS', delay_ms: 10_000 }] },
    harnessEnv: { HARNESS_RUN_TIMEOUT_MS: '1000', HARNESS_GUARD_TIME_RESERVE_MS: '100' },
    terminal: { status: 'FAILED', errorCode: 'RUN_TIMEOUT' },
    events: ['metadata', 'failure:RUN_TIMEOUT', 'done:FAILED'],
  },
];

describe('ChatApplicationUseCase: release, fallback or failure', () => {
  it.each(CASES)('$name → $terminal.status', async (c) => {
    const { events, finished, kit } = await chat(c.roles, {
      knowledge: c.knowledge,
      harnessEnv: c.harnessEnv,
    });
    expect(finished).toMatchObject(c.terminal);
    expect(terminalOf(events)).toEqual(c.events);
    // metadata first, status events only between it and the answer, done last.
    expect(shape(events)[0]).toBe('metadata');
    expect(shape(events)[1]).toBe('status');
    expect(kit.runs.released).toEqual([kit.runs.started[0].runId]);
    // Counted once, as the client heard it, under the routed intent (UNROUTED when routing failed).
    const ends = await runEnds(kit);
    expect(ends).toHaveLength(1);
    expect(ends[0].replace(/^[A-Z_]+\//, '')).toBe(heardEnd(events));
    const routed =
      c.name.includes('router') || c.name.includes('during routing') ? null : c.roles['intent-router'][0];
    expect(ends[0].split('/')[0]).toBe(routed ? routed.content : 'UNROUTED');
  });

  it('the client hears the answer only once the terminal state is stored', async () => {
    let heardBeforeStored = false;
    const kit = chatKit({ 'intent-router': route('SYSTEM_CHAT'), 'system-chat': [{ content: 'hi' }] });
    const { stream, events } = recordingStream();
    const finish = kit.journal.finish.bind(kit.journal);
    kit.journal.finish = (...args) => {
      heardBeforeStored = events.some((event) => event.event === 'content');
      return finish(...args);
    };
    await kit.useCase.handle(
      await kit.useCase.open({ query: 'hi', ownerKeyDigest: KEY }),
      stream,
      new AbortController().signal,
    );
    expect(heardBeforeStored).toBe(false);
    expect(terminalOf(events)).toEqual(['metadata', 'content:SYSTEM_ANSWER', 'done:SUCCESS']);
  });

  it.each(['FAILS', 'NOT_RUNNING'] as const)(
    'a terminal write that %s is announced as INTERNAL_ERROR, never as the answer',
    async (finish) => {
      const { events, kit } = await chat(
        { 'intent-router': route('SYSTEM_CHAT'), 'system-chat': [{ content: 'hi' }] },
        { finish },
      );
      expect(terminalOf(events)).toEqual(['metadata', 'failure:INTERNAL_ERROR', 'done:FAILED']);
      // Counted as what the client heard, not as the answer that was never stored.
      expect(await runEnds(kit)).toEqual(['SYSTEM_CHAT/FAILED/INTERNAL_ERROR=1']);
    },
  );

  it('an unexpected error is INTERNAL_ERROR with a fixed message', async () => {
    const { events, finished, kit } = await chat(
      { 'intent-router': route('SYSTEM_CHAT') },
      {
        prepare: (k) => {
          k.runs.owners.set('s-1', KEY);
          k.runs.readsFail = true;
        },
        sessionId: 's-1',
      },
    );
    expect(finished).toMatchObject({ status: 'FAILED', errorCode: 'INTERNAL_ERROR' });
    const failure = events.find((event) => event.event === 'failure');
    expect(failure?.data).toEqual({
      code: 'INTERNAL_ERROR',
      message: expect.stringContaining('internal error'),
    });
    expect(JSON.stringify(events)).not.toContain('database down');
    expect(kit.runs.released).toHaveLength(1);
  });

  it('a client that leaves gets nothing more; the run is stored CANCELLED', async () => {
    const client = new AbortController();
    const { events, finished, kit } = await chat(
      { 'intent-router': [{ content: 'DIAGNOSIS', delay_ms: 10_000 }] },
      {
        clientSignal: client.signal,
        prepare: () => setTimeout(() => client.abort(), 30),
      },
    );
    expect(finished).toMatchObject({
      status: 'CANCELLED',
      releaseOutcome: 'CANCELLED',
      errorCode: 'CLIENT_DISCONNECTED',
    });
    expect(terminalOf(events)).toEqual(['metadata']);
    expect(await runEnds(kit)).toEqual(['UNROUTED/CANCELLED/CLIENT_DISCONNECTED=1']);
  });

  it('SYSTEM_CHAT text that fails the release checks becomes the fixed capabilities text', async () => {
    const { events } = await chat({
      'intent-router': route('SYSTEM_CHAT'),
      'system-chat': [{ content: 'Run `rm -rf /` or visit https://evil.example.com' }],
    });
    const content = events.find((event) => event.event === 'content');
    expect(content?.data).toEqual({
      content_type: 'SYSTEM_ANSWER',
      payload: { answer: SYSTEM_CHAT_CAPABILITIES },
    });
  });

  it('a released knowledge answer shows its cited document as data: dangerous strings inert', async () => {
    const planted = {
      ...KNOWLEDGE_DOC,
      excerpt: 'Find the leak first. Mirror: https://evil.example.com/fix',
    };
    const { events } = await chat(
      {
        'intent-router': route('KNOWLEDGE_QUERY'),
        'knowledge-answer': [knowledgeReply],
        'knowledge-guard': [SUPPORTED],
      },
      { knowledge: [planted] },
    );
    const content = events.find((event) => event.event === 'content');
    expect(content?.data).toMatchObject({
      content_type: 'KNOWLEDGE_ANSWER',
      payload: {
        references: [
          {
            title: KNOWLEDGE_DOC.title,
            excerpt: '⚠ [inert] Find the leak first. Mirror: https[:]∕∕evil[.]example[.]com/fix',
          },
        ],
      },
    });
  });

  it('a run that asked for notification hands its ids to the notifier once its end is stored', async () => {
    const roles = { 'intent-router': route('SYSTEM_CHAT'), 'system-chat': [{ content: 'hi' }] };
    const { kit, events } = await chat(roles, { notify: ['ops-slack'] });
    const metadata = events[0].event === 'metadata' ? events[0].data : null;
    expect(kit.notified).toEqual([
      {
        runId: metadata?.run_id,
        sessionId: metadata?.session_id,
        trigger: 'chat',
        targets: ['ops-slack'],
        alertLabels: null,
      },
    ]);
    // Owed to the named target from the run's start, before its end was handed over.
    expect(kit.owed).toEqual([
      { runId: metadata?.run_id, trigger: 'chat', names: ['ops-slack'], notifiedBefore: 0 },
    ]);
    const quiet = (await chat(roles)).kit;
    expect(quiet.notified).toEqual([]);
    expect(quiet.owed).toEqual([]);
  });

  it('an end that could not be stored notifies nobody (its owed rows are left to the sweep)', async () => {
    const roles = { 'intent-router': route('SYSTEM_CHAT'), 'system-chat': [{ content: 'hi' }] };
    const { kit } = await chat(roles, { notify: ['ops-slack'], finish: 'FAILS' });
    expect(kit.notified).toEqual([]);
    expect(kit.owed).toHaveLength(1);
  });

  it('a session of another key is UnknownSession, before any run or event', async () => {
    const kit = chatKit({});
    kit.runs.owners.set('s-other', 'b'.repeat(64));
    await expect(
      kit.useCase.open({ query: 'q', ownerKeyDigest: KEY, sessionId: 's-other' }),
    ).rejects.toBeInstanceOf(UnknownSession);
    expect(kit.runs.started).toHaveLength(0);
  });

  it('metadata goes out before the run row is written; a start not recorded is RUN_NOT_RECORDED', async () => {
    const kit = chatKit({ 'intent-router': route('SYSTEM_CHAT'), 'system-chat': [{ content: 'hi' }] });
    const { stream, events } = recordingStream();
    let heardAtStart: string[] = [];
    const startRun = kit.runs.startRun.bind(kit.runs);
    kit.runs.startRun = (run) => {
      heardAtStart = events.map((event) => event.event);
      kit.runs.startFails = true;
      return startRun(run);
    };
    await kit.useCase.handle(
      await kit.useCase.open({ query: 'hi', ownerKeyDigest: KEY }),
      stream,
      new AbortController().signal,
    );
    expect(heardAtStart).toEqual(['metadata']);
    expect(terminalOf(events)).toEqual(['metadata', 'failure:RUN_NOT_RECORDED', 'done:FAILED']);
    expect(kit.journal.finished).toBeNull();
    expect(await runEnds(kit)).toEqual(['UNROUTED/FAILED/RUN_NOT_RECORDED=1']);
  });
});

describe('ChatApplicationUseCase: runs started by code, and their completion', () => {
  const ALERT = {
    receiver: 'superbiz',
    groupKey: '{}:{alertname="PaymentTimeouts"}',
    labels: { alertname: 'PaymentTimeouts' },
    status: 'firing' as const,
  };

  /** An alert-started run, as AlertIngestService starts it, and the completions its listeners heard. */
  async function alertRun(runId: string, signal: AbortSignal) {
    // No intent-router replies: a routing call would fail the run.
    const kit = chatKit({ 'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED), 'semantic-guard': [SUPPORTED] });
    const heard: unknown[] = [];
    kit.completions.register({ runCompleted: (run) => void heard.push(run) });
    const { stream } = recordingStream();
    // The caller sends the metadata (a chat's before its run row exists), as AlertIngestService does.
    stream.metadata('alert-session', runId);
    await kit.useCase.runStarted(
      {
        sessionId: 'alert-session',
        runId,
        query: 'Alert investigation: "PaymentTimeouts"',
        continued: false,
        intent: 'DIAGNOSIS',
        timeAnchor: new Date('2026-12-05T10:15:00Z'),
        alert: ALERT,
      },
      stream,
      signal,
    );
    return { kit, heard };
  }

  it('an alert-started run is a diagnosis without a routing call; its listeners hear the released report', async () => {
    const { kit, heard } = await alertRun('alert-run', new AbortController().signal);
    expect(kit.journal.finished).toMatchObject({ status: 'SUCCESS', releaseOutcome: 'SUCCESS' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([
      expect.objectContaining({
        sessionId: 'alert-session',
        runId: 'alert-run',
        origin: 'ALERT',
        alert: ALERT,
        stored: true,
        status: 'SUCCESS',
        content: expect.objectContaining({ content_type: 'DIAGNOSIS_REPORT' }),
        failure: null,
      }),
    ]);
  });

  it('a run given up because the service stops is stored CANCELLED by SERVICE_STOPPING, not as a client leaving', async () => {
    const { kit, heard } = await alertRun(
      'stopped-run',
      AbortSignal.abort(new RunCancelled('SERVICE_STOPPING')),
    );
    expect(kit.journal.finished).toMatchObject({
      status: 'CANCELLED',
      releaseOutcome: 'CANCELLED',
      errorCode: 'SERVICE_STOPPING',
    });
    expect(await runEnds(kit)).toEqual(['DIAGNOSIS/CANCELLED/SERVICE_STOPPING=1']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([expect.objectContaining({ status: 'CANCELLED' })]);
  });

  it('a chat run reports its completion too, with what its client heard; a failing listener changes nothing', async () => {
    const kit = chatKit({ 'intent-router': route('SYSTEM_CHAT'), 'system-chat': [{ content: 'hi' }] });
    kit.journal.finishAnswer = 'FAILS';
    const heard: unknown[] = [];
    kit.completions.register({
      runCompleted: () => {
        throw new Error('listener down');
      },
    });
    kit.completions.register({ runCompleted: (run) => void heard.push(run) });
    const { stream, events } = recordingStream();
    await kit.useCase.handle(
      await kit.useCase.open({ query: 'hi', ownerKeyDigest: KEY }),
      stream,
      new AbortController().signal,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(terminalOf(events)).toEqual(['metadata', 'failure:INTERNAL_ERROR', 'done:FAILED']);
    expect(heard).toEqual([
      expect.objectContaining({
        origin: 'CHAT',
        alert: null,
        stored: false,
        status: 'FAILED',
        errorCode: 'INTERNAL_ERROR',
        content: null,
        failure: expect.objectContaining({ code: 'INTERNAL_ERROR' }),
      }),
    ]);
  });
});
