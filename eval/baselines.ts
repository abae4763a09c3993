import { parseStubScript, StubReply, StubScript } from '../test/support/stub-llm/stub-script';

/**
 * Baseline models run beside the model under test on the stub LLM, so a score is read against what
 * a useless model gets for free. Each is derived from a scenario's oracle: the same tool rounds (the same
 * cost and the same evidence), only the final answers and the reviewer's verdicts differ.
 */
export const BASELINES = ['always-fallback', 'always-same-cause'] as const;
export type Baseline = (typeof BASELINES)[number];

const verdict = (value: 'SUPPORTED' | 'UNSUPPORTED', reason: string): StubReply => ({
  content: JSON.stringify({ verdict: value, reason }),
});

interface DraftShape {
  analysis?: { kind?: string; tool_call_ids?: string[] }[];
}

/** The first tool call a NORMAL analysis of the oracle's draft cites: a real call that found evidence. */
function citedCall(reply: StubReply, previous: StubReply | undefined): string {
  try {
    const draft = JSON.parse(reply.content ?? '') as DraftShape;
    const id = draft.analysis?.find((item) => item.kind === 'NORMAL')?.tool_call_ids?.[0];
    if (id) return id;
  } catch {
    // not a draft: fall back to the round's first call
  }
  const id = previous?.tool_calls?.[0]?.id;
  if (!id) throw new Error('an oracle final answer follows no tool round');
  return id;
}

/**
 * "The order database is down", whatever happened, citing a real but unrelated call: a misattribution
 * that passes EvidenceGuard (the citation exists) and, with a reviewer that approves everything,
 * SemanticGuard. The grounding check must refuse it: its error code, port and server are in no evidence.
 */
export function databaseIsDownDraft(toolCallId: string): string {
  return JSON.stringify({
    conclusion: {
      text: "The order database is down: order-service cannot connect to MySQL (ERROR 2003, Can't connect to MySQL server on mysql-orders:3306)",
      based_on_analysis_ids: ['a1'],
    },
    analysis: [
      {
        analysis_id: 'a1',
        kind: 'NORMAL',
        text: "order-service failed to connect to the order database: ERROR 2003 (HY000): Can't connect to MySQL server on mysql-orders:3306",
        tool_call_ids: [toolCallId],
      },
    ],
    action_plan: [
      {
        action: 'Restart the order database after checking its host',
        based_on_analysis_ids: ['a1'],
        requires_human_confirmation: true,
      },
    ],
    recommendations: [{ text: 'Alert on order database availability', based_on_analysis_ids: ['a1'] }],
    limitations: { scope: 'the cited tool results', missing_info: [] },
  });
}

/** The stub script of a baseline for one scenario, derived from its oracle. */
export function baselineScript(baseline: Baseline, oracle: unknown): StubScript {
  const script = parseStubScript(oracle);
  const agent = script.roles['diagnosis-agent'] ?? [];
  const finals = agent.filter((reply) => !reply.tool_calls?.length).length;
  if (baseline === 'always-fallback') {
    return {
      ...script,
      roles: {
        ...script.roles,
        'semantic-guard': Array.from({ length: finals }, () =>
          verdict('UNSUPPORTED', 'the evidence does not support the analysis'),
        ),
      },
    };
  }
  const answers = agent.map((reply, index) =>
    reply.tool_calls?.length
      ? reply
      : { ...reply, content: databaseIsDownDraft(citedCall(reply, agent[index - 1])) },
  );
  return {
    ...script,
    roles: {
      ...script.roles,
      'diagnosis-agent': answers,
      // Asked to repair a citation it got wrong, it answers the same draft again.
      'evidence-repair': answers
        .filter((reply) => !reply.tool_calls?.length)
        .map((reply) => ({ content: reply.content })),
      'semantic-guard': Array.from({ length: finals }, () => verdict('SUPPORTED', 'looks right')),
    },
  };
}
