import { randomBytes } from 'node:crypto';
import { AuditCipher } from '../audit/audit-cipher';
import type { JournalBatch } from './run-journal';
import {
  finishStatements,
  journalInserts,
  RunJournalRepository,
  runUpdate,
  Statement,
} from './run-journal.repository';
import type { FinishRun } from './run.repository';

const cipher = new AuditCipher(new Map([['k1', randomBytes(32)]]), 'k1');

const batch = (parts: Partial<JournalBatch> = {}): JournalBatch => ({
  events: [],
  steps: [],
  invocations: [],
  intent: null,
  budgetExhausted: null,
  ...parts,
});

const FINISH: FinishRun = {
  status: 'FALLBACK',
  releaseOutcome: 'FALLBACK',
  fallbackReason: 'SEMANTIC_UNSUPPORTED',
  modelCalls: 4,
  toolCalls: 1,
  inputTokens: 10,
  outputTokens: 5,
  totalTokens: 15,
  durationMs: 900,
};

const STEP = {
  stepIndex: 2,
  role: 'diagnosis-agent',
  attempt: 1,
  status: 'OK' as const,
  errorCode: null,
  finishReason: 'tool_calls',
  toolCallCount: 1,
  inputTokens: 1200,
  outputTokens: 90,
  totalTokens: 1290,
  startedAt: new Date('2026-12-03T07:00:00.123Z'),
  durationMs: 200,
};

const INVOCATION = {
  toolCallId: 'call_1',
  toolName: 'query_logs',
  status: 'READY' as const,
  evidenceStatus: 'EVIDENCE_FOUND' as const,
  errorCode: null,
  argSummary: { topic: 'APPLICATION' },
  requestBytes: 90,
  rawBytes: 4000,
  agentResultBytes: 1500,
  truncated: true,
  startedAt: new Date('2026-12-03T07:00:01.000Z'),
  durationMs: 5,
};

const placeholders = (statement: Statement) => statement.sql.split('?').length - 1;

describe('runUpdate', () => {
  it.each<[string, JournalBatch, FinishRun | undefined, RegExp | null]>([
    ['nothing for the run row', batch(), undefined, null],
    [
      'the intent',
      batch({ intent: 'DIAGNOSIS' }),
      undefined,
      /^UPDATE diagnosis_run SET intent = \? WHERE run_id = \?$/,
    ],
    [
      'the first budget limit, never over an earlier one',
      batch({ budgetExhausted: 'MODEL_CALLS' }),
      undefined,
      /SET budget_exhausted_reason = COALESCE\(budget_exhausted_reason, \?\) WHERE run_id = \?$/,
    ],
    [
      'the terminal state, only while RUNNING',
      batch(),
      FINISH,
      /SET status = \?.* WHERE run_id = \? AND status = 'RUNNING'$/,
    ],
    [
      'the terminal state with the intent',
      batch({ intent: 'KNOWLEDGE_QUERY' }),
      FINISH,
      /ended_at = \?, intent = \? WHERE/,
    ],
  ])('writes %s', (_name, pending, finish, sql) => {
    const statement = runUpdate('r-1', pending, finish);
    if (sql === null) return expect(statement).toBeNull();
    expect(statement?.sql).toMatch(sql);
    expect(statement?.params).toHaveLength(placeholders(statement!));
    expect(statement?.params.at(-1)).toBe('r-1');
  });

  it('binds the published result as JSON and the end as UTC DATETIME(3)', () => {
    const published = {
      user_query: 'q',
      published_conclusion: null,
      scope: 's',
      limitations: [],
      source_documents: [],
    };
    const statement = runUpdate('r-1', batch(), { ...FINISH, publishedResult: published })!;
    expect(statement.params).toContain(JSON.stringify(published));
    expect(
      statement.params.find(
        (value) => typeof value === 'string' && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/.test(value),
      ),
    ).toBeDefined();
  });
});

describe('journalInserts', () => {
  it.each<[string, JournalBatch, string[]]>([
    ['nothing', batch(), []],
    [
      'events only',
      batch({ events: [{ phase: 'RUN', eventType: 'RUN_STARTED', details: null, at: 0 }] }),
      ['diagnosis_trace_event'],
    ],
    [
      'a model step with its audit row',
      batch({
        steps: [
          {
            step: STEP,
            audit: { contentSource: 'UNAVAILABLE', reasoningContent: null, assistantText: null },
          },
        ],
      }),
      ['agent_step', 'agent_reasoning_audit'],
    ],
    [
      'everything',
      batch({
        events: [{ phase: 'TOOL', eventType: 'TOOL_STARTED', details: { tool: 'query_logs' }, at: 0 }],
        steps: [
          {
            step: STEP,
            audit: { contentSource: 'ASSISTANT_TEXT_ONLY', reasoningContent: null, assistantText: 'plan' },
          },
        ],
        invocations: [INVOCATION, { ...INVOCATION, toolCallId: null, truncated: false }],
      }),
      ['diagnosis_trace_event', 'agent_step', 'agent_reasoning_audit', 'tool_invocation'],
    ],
  ])('one multi-row INSERT per table with rows: %s', (_name, pending, tables) => {
    const statements = journalInserts('r-1', pending, cipher, 0);
    expect(statements.map((statement) => /^INSERT INTO (\w+)/.exec(statement.sql)?.[1])).toEqual(tables);
    for (const statement of statements) expect(statement.params).toHaveLength(placeholders(statement));
  });

  it('puts several rows of a table in one statement, in the order they were recorded', () => {
    const events = (['ROUTED', 'MODEL_STEP', 'ATTEMPT'] as const).map((eventType, i) => ({
      phase: 'ROUTING' as const,
      eventType,
      details: null,
      at: i,
    }));
    const [statement] = journalInserts('r-1', batch({ events }), cipher, 10);
    expect(statement.sql.match(/\(\?, \?, \?, \?, NOW\(3\) - INTERVAL \? MICROSECOND\)/g)).toHaveLength(3);
    expect(statement.params.filter((_value, i) => i % 5 === 2)).toEqual(['ROUTED', 'MODEL_STEP', 'ATTEMPT']);
  });

  it('dates each event back by how long ago it happened (whole milliseconds, never negative)', () => {
    const events = [
      { phase: 'RUN' as const, eventType: 'RUN_STARTED' as const, details: { n: 1 }, at: 1000.4 },
      { phase: 'RUN' as const, eventType: 'RUN_FINISHED' as const, details: null, at: 3000 },
    ];
    const [statement] = journalInserts('r-1', batch({ events }), cipher, 2500);
    expect(statement.params).toEqual([
      'r-1',
      'RUN',
      'RUN_STARTED',
      '{"n":1}',
      1_500_000,
      'r-1',
      'RUN',
      'RUN_FINISHED',
      null,
      0,
    ]);
  });

  it('seals the audit text bound to its run, step, column, role and content source, so it opens only there', () => {
    const [, audit] = journalInserts(
      'r-1',
      batch({
        steps: [
          {
            step: STEP,
            audit: { contentSource: 'PROVIDER_REASONING', reasoningContent: 'think', assistantText: 'say' },
          },
        ],
      }),
      cipher,
    );
    const [, , role, source, keyId, reasoning, assistant] = audit.params as (string | null)[];
    expect([role, source, keyId]).toEqual(['diagnosis-agent', 'PROVIDER_REASONING', 'k1']);
    expect(reasoning).not.toContain('think');
    const cell = { runId: 'r-1', stepIndex: 2, role: 'diagnosis-agent', contentSource: 'PROVIDER_REASONING' };
    expect(cipher.open(keyId, reasoning, { ...cell, column: 'reasoning_content' })).toEqual({
      readable: true,
      text: 'think',
    });
    expect(cipher.open(keyId, assistant, { ...cell, column: 'assistant_text' })).toEqual({
      readable: true,
      text: 'say',
    });
    for (const other of [
      { runId: 'r-2' },
      { role: 'semantic-guard' },
      { contentSource: 'ASSISTANT_TEXT_ONLY' },
    ]) {
      expect(cipher.open(keyId, reasoning, { ...cell, ...other, column: 'reasoning_content' })).toEqual({
        readable: false,
      });
    }
  });

  it('binds tool invocations with JSON arguments, UTC start and a 0/1 truncated flag', () => {
    const [statement] = journalInserts('r-1', batch({ invocations: [INVOCATION] }), cipher);
    expect(statement.params).toEqual([
      'r-1',
      'call_1',
      'query_logs',
      'READY',
      'EVIDENCE_FOUND',
      null,
      '{"topic":"APPLICATION"}',
      90,
      4000,
      1500,
      1,
      '2026-12-03 07:00:01.000',
      5,
    ]);
  });
});

describe('finishStatements', () => {
  const statements = finishStatements('r-1', batch({ invocations: [INVOCATION] }), FINISH, cipher);

  it('binds exactly as many values as each statement has placeholders', () => {
    for (const statement of statements) expect(statement.params).toHaveLength(placeholders(statement));
  });

  it("keeps the terminal UPDATE's row count, then writes the journal rows whatever it was", () => {
    expect(statements[0].sql).toMatch(/^UPDATE diagnosis_run SET status = \?.* AND status = 'RUNNING'$/);
    expect(statements[1].sql).toBe('SET @superbiz_run_finished = ROW_COUNT()');
    expect(statements[2].sql).toMatch(/^INSERT INTO tool_invocation /);
    expect(statements[2].sql).not.toContain('@superbiz_run_finished');
  });

  it('adds RUN_FINISHED and the session summary only when the UPDATE stored the state, and reads the flag last', () => {
    const [finished, summary, flag] = statements.slice(-3);
    expect(finished.sql).toMatch(/'RUN_FINISHED'.* WHERE @superbiz_run_finished > 0$/s);
    expect(finished.params).toEqual(['r-1', '{"status":"FALLBACK"}']);
    expect(summary.sql).toMatch(
      /^UPDATE chat_session s JOIN diagnosis_run r .* WHERE @superbiz_run_finished > 0$/s,
    );
    expect(flag.sql).toBe('SELECT @superbiz_run_finished AS finished');
  });
});

describe('RunJournalRepository.progressWriteFailed', () => {
  const repository = new RunJournalRepository(null as never, cipher, null as never, null as never);
  const driverError = (code: string) => Object.assign(new Error(`${code} at a statement`), { code });

  it.each([
    ['a deadlock victim (rolled back: rows not written)', driverError('ER_LOCK_DEADLOCK'), true],
    ['a lock-wait timeout (rolled back)', driverError('ER_LOCK_WAIT_TIMEOUT'), true],
    ['a lost connection (the commit may have happened)', driverError('PROTOCOL_CONNECTION_LOST'), false],
    [
      'a time limit passed mid-write (the commit may have happened)',
      driverError('PROTOCOL_SEQUENCE_TIMEOUT'),
      false,
    ],
  ])('%s: keep the rows for the next write = %s', (_name, error, keep) => {
    expect(repository.progressWriteFailed('r-1', error)).toBe(keep);
  });
});
