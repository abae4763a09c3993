import { describePurge, PURGED_TABLES, PurgeResult } from './retention.service';

describe('describePurge', () => {
  const none = Object.fromEntries(PURGED_TABLES.map((table) => [table, 0])) as PurgeResult['deleted'];
  it.each([
    [
      'nothing purged',
      { deleted: none, expiredAuditRows: 0, abandonedRuns: 0 },
      'purged rows: agent_reasoning_audit 0, agent_step 0, tool_invocation 0, diagnosis_trace_event 0, diagnosis_run 0, alert_notification 0, alert_group 0, chat_session 0 (0 reasoning-audit row(s) past AUDIT_RETENTION_DAYS); closed 0 abandoned run(s)',
    ],
    [
      'an expired session with its runs’ rows',
      {
        deleted: { ...none, agent_reasoning_audit: 3, agent_step: 2, diagnosis_run: 1, chat_session: 1 },
        expiredAuditRows: 1,
        abandonedRuns: 2,
      },
      'purged rows: agent_reasoning_audit 3, agent_step 2, tool_invocation 0, diagnosis_trace_event 0, diagnosis_run 1, alert_notification 0, alert_group 0, chat_session 1 (1 reasoning-audit row(s) past AUDIT_RETENTION_DAYS); closed 2 abandoned run(s)',
    ],
  ])('%s', (_name, result, expected) => {
    expect(describePurge(result)).toBe(expected);
  });
});
