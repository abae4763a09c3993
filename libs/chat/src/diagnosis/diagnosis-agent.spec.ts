import { isToolMessage, ToolMessage } from '@langchain/core/messages';
import { BudgetExhausted, RunCancelled, RunDeadlineExceeded } from '@app/harness';
import type { StubReply } from '@test/support/stub-llm/stub-script';
import { agentTurnsOnFakeLogs, diagnosisKit } from '@test/support/unit-diagnosis';
import { toolErrorCodeOf } from './diagnosis-agent';
import { MemoryJournalStore, startUnitRun, UnitRunOptions } from '@test/support/unit-harness';

async function runAgent(
  replies: StubReply[],
  options: { harnessEnv?: Record<string, string>; run?: UnitRunOptions } = {},
) {
  const journal = new MemoryJournalStore();
  const kit = diagnosisKit({ 'diagnosis-agent': replies }, { harnessEnv: options.harnessEnv, journal });
  const { ctx } = startUnitRun({ journal, ...options.run });
  const statuses: { code: string; message: string }[] = [];
  try {
    const answer = await kit.agent.run(ctx, 'order-123 payment times out', null, {
      status: (code, message) => statuses.push({ code, message }),
    });
    return { answer, statuses, kit, journal };
  } finally {
    await ctx.journal.flush().catch(() => undefined);
    ctx.close();
  }
}

/** The tool results the model was shown on its second turn. */
function observationsOf(kit: ReturnType<typeof diagnosisKit>): Record<string, unknown>[] {
  const second = kit.model.callsFor('diagnosis-agent')[1];
  return second.messages
    .filter((message): message is ToolMessage => isToolMessage(message))
    .map((message) => JSON.parse(String(message.content)) as Record<string, unknown>);
}

describe('DiagnosisAgent', () => {
  it('returns the final message as the draft, after one tool round through the boundary', async () => {
    const { answer, statuses, kit } = await runAgent(agentTurnsOnFakeLogs('{"draft":1}'));
    expect(answer).toBe('{"draft":1}');
    expect(statuses.map((status) => status.code)).toEqual([
      'PLANNING',
      'DIAGNOSIS_PLAN',
      'TOOL_RUNNING',
      'TOOL_DONE',
    ]);
    expect(statuses[1].message).toContain('fake logs');
    // The model sees the bounded agent_result, never the raw response.
    const [observation] = observationsOf(kit);
    expect(observation).toMatchObject({ tool_call_id: 'call_logs_1', evidence_status: 'EVIDENCE_FOUND' });
    expect(JSON.stringify(observation)).not.toContain('RAW-ONLY-MARKER');
    expect((await kit.store.get('run-unit-1', 'call_logs_1'))?.status).toBe('READY');
    // The agent is offered exactly the catalog's tools.
    expect(kit.model.callsFor('diagnosis-agent')[0].tools).toEqual(['query_logs']);
  });

  it('status texts never carry the model prose or the free-text arguments', async () => {
    const { statuses } = await runAgent([
      {
        content: 'SECRET-PLAN-TEXT',
        tool_calls: [{ id: 'call_1', name: 'query_logs', arguments: { query: 'SECRET-QUERY', count: 1 } }],
      },
      { content: 'done' },
    ]);
    expect(JSON.stringify(statuses)).not.toMatch(/SECRET/);
  });

  it('a model that answers without tools gives no plan and no tool status', async () => {
    const { answer, statuses } = await runAgent([{ content: 'straight answer' }]);
    expect(answer).toBe('straight answer');
    expect(statuses.map((status) => status.code)).toEqual(['PLANNING']);
  });

  it.each([
    {
      name: 'an unknown tool',
      call: { id: 'call_u', name: 'drop_tables', arguments: {} },
      code: 'UNKNOWN_TOOL',
    },
    {
      name: 'unreadable argument text',
      call: { id: 'call_m', name: 'query_logs', arguments: '{"query": "x", ' },
      code: 'INVALID_ARGUMENTS',
    },
    {
      name: 'arguments outside the schema',
      call: { id: 'call_s', name: 'query_logs', arguments: { query: '' } },
      code: 'INVALID_ARGUMENTS',
    },
  ])('$name becomes a $code observation the model sees, and the loop goes on', async ({ call, code }) => {
    const { answer, kit, journal } = await runAgent([
      { content: '', tool_calls: [call] },
      { content: 'final' },
    ]);
    expect(answer).toBe('final');
    expect(observationsOf(kit)).toEqual([
      expect.objectContaining({ tool_call_id: call.id, error_code: code }),
    ]);
    expect(journal.invocations.map((row) => row.errorCode)).toEqual([code]);
  });

  it('a loop that never stops is ended by the recursion limit as MODEL_CALLS budget', async () => {
    const again: StubReply = {
      content: '',
      tool_calls: [{ id: 'call_again', name: 'query_logs', arguments: { query: 'x', count: 1 } }],
    };
    // One model call allowed: the ReAct graph's recursion limit (2 per model step + 2) stops it.
    await expect(
      runAgent(
        Array.from({ length: 6 }, (_, i) => ({
          ...again,
          tool_calls: [{ ...again.tool_calls![0], id: `call_${i}` }],
        })),
        { harnessEnv: { HARNESS_AGENT_MAX_MODEL_CALLS: '1', HARNESS_AGENT_MAX_CALLS_PER_TOOL: '1' } },
      ),
    ).rejects.toEqual(new BudgetExhausted('MODEL_CALLS'));
  });

  it("the run's own model-call budget stops the loop with BudgetExhausted", async () => {
    await expect(
      runAgent(
        [
          {
            content: '',
            tool_calls: [{ id: 'call_1', name: 'query_logs', arguments: { query: 'x', count: 1 } }],
          },
          { content: 'never reached' },
        ],
        { run: { limits: { maxModelCalls: 1 } } },
      ),
    ).rejects.toBeInstanceOf(BudgetExhausted);
  });

  it('a deadline during a model call ends the loop with RunDeadlineExceeded', async () => {
    await expect(
      runAgent([{ content: 'late', delay_ms: 5_000 }], { run: { timeoutMs: 50 } }),
    ).rejects.toBeInstanceOf(RunDeadlineExceeded);
  });

  it('a client that leaves ends the loop with RunCancelled', async () => {
    const client = new AbortController();
    setTimeout(() => client.abort(), 30);
    await expect(
      runAgent([{ content: 'late', delay_ms: 5_000 }], { run: { parentSignal: client.signal } }),
    ).rejects.toBeInstanceOf(RunCancelled);
  });
});

describe('toolErrorCodeOf', () => {
  it.each<[string, string | null]>([
    [
      '{"evidence_status":"ERROR","error_code":"DATASOURCE_UNAVAILABLE","message":"x"}',
      'DATASOURCE_UNAVAILABLE',
    ],
    ['{"evidence_status":"OK","rows":[]}', null],
    ['{"error_code":42}', null],
    ['null', null],
    ['not json', null],
    ['', null],
  ])('reads %p as %p', (content, code) => {
    expect(toolErrorCodeOf(content)).toBe(code);
  });
});
