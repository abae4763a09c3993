import type { StubReply } from './stub-llm/stub-script';

/** A draft as the Diagnosis Agent would write it; `marker` lets tests prove where its text (does not) appear. */
export function draftJson(
  options: {
    cite?: string[];
    kind?: 'NORMAL' | 'NEGATIVE_OBSERVATION';
    marker?: string;
    /** The conclusion's and the analysis's text, for evidence that is not the pool-exhaustion logs. */
    text?: string;
  } = {},
): string {
  const marker = options.marker ?? 'DRAFT-MARKER';
  return JSON.stringify({
    conclusion: {
      text: `${marker} ${options.text ?? 'payment timeouts come from HikariCP pool exhaustion in order-service'}`,
      based_on_analysis_ids: ['a1'],
    },
    analysis: [
      {
        analysis_id: 'a1',
        kind: options.kind ?? 'NORMAL',
        text: `${marker} ${options.text ?? '84 HikariPool connection timeouts in the last 30 minutes'}`,
        tool_call_ids: options.cite ?? ['call_logs_1'],
      },
    ],
    action_plan: [
      {
        action: 'Find and stop the long transaction holding connections',
        based_on_analysis_ids: ['a1'],
        requires_human_confirmation: true,
      },
    ],
    recommendations: [{ text: 'Alert on pool waiting threads', based_on_analysis_ids: ['a1'] }],
    limitations: { scope: 'order-service, last 30 minutes, MOCK logs', missing_info: ['no slow query log'] },
  });
}

/** The agent's first turn: a plan and a log query, then its final draft. */
export function agentTurns(finalDraft: string): StubReply[] {
  return [
    {
      content: '1. check order-service logs for pool errors\n2. look up the runbook\n3. conclude',
      reasoning_content: 'REASONING-MARKER the pool looks exhausted',
      tool_calls: [
        {
          id: 'call_logs_1',
          name: 'query_logs',
          arguments: {
            topic: 'APPLICATION',
            query: 'order-service HikariPool',
            lookback_minutes: 30,
          },
        },
      ],
    },
    { content: finalDraft },
  ];
}

export const SUPPORTED = { content: '{"verdict":"SUPPORTED","reason":"evidence supports the analysis"}' };
export const UNSUPPORTED = {
  content: '{"verdict":"UNSUPPORTED","reason":"the conclusion goes beyond the evidence"}',
};
