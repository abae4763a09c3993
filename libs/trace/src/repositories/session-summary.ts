import type { Statement } from './run-journal.repository';

/**
 * The session-list row's share of a run's terminal write, in the same transaction and after the run's
 * own terminal UPDATE (it reads the run's new status): one more ended run, the newest ended run's start,
 * status and query (an older run ending late counts but does not replace them), and last activity.
 * The "newer" test reads last_run_at, which the same statement also sets; it gives the same answer
 * before and after that assignment (GREATEST), so the undefined order of a multi-table UPDATE's
 * assignments does not matter.
 */
export function sessionSummaryUpdate(runId: string): Statement {
  const newer = 'r.created_at >= COALESCE(s.last_run_at, r.created_at)';
  return {
    sql: `UPDATE chat_session s JOIN diagnosis_run r ON r.session_id = s.session_id AND r.run_id = ?
      SET s.last_query = IF(${newer}, LEFT(r.query, 200), s.last_query),
        s.last_outcome = IF(${newer}, r.status, s.last_outcome),
        s.last_run_at = GREATEST(COALESCE(s.last_run_at, r.created_at), r.created_at),
        s.run_count = s.run_count + 1,
        s.updated_at = NOW(3)`,
    params: [runId],
  };
}
