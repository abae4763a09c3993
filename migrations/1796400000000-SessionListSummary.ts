import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the session list shows, kept on chat_session by each run's terminal write, so a page is read in
 * index order (owner, updated_at, session_id) with no per-session subquery, grouping or sort
 * (docs/architecture.md, "Session list"). Backfilled from the runs that have already ended; runs still
 * in flight add themselves when they end.
 */
export class SessionListSummary1796400000000 implements MigrationInterface {
  name = 'SessionListSummary1796400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE chat_session ADD COLUMN run_count INT UNSIGNED NOT NULL DEFAULT 0, ' +
        'ADD COLUMN last_run_at DATETIME(3) NULL, ADD COLUMN last_outcome VARCHAR(16) NULL, ' +
        'ADD COLUMN last_query VARCHAR(200) NULL, ' +
        'DROP KEY idx_chat_session_owner_updated, ' +
        'ADD KEY idx_chat_session_owner_updated_id (owner_key_digest, updated_at, session_id)',
    );
    await queryRunner.query(
      `UPDATE chat_session s JOIN (
         SELECT session_id, COUNT(*) AS runs, MAX(created_at) AS last_run_at, MAX(ended_at) AS last_end
         FROM diagnosis_run WHERE status <> 'RUNNING' GROUP BY session_id
       ) r ON r.session_id = s.session_id
       SET s.run_count = r.runs, s.last_run_at = r.last_run_at,
         s.updated_at = GREATEST(s.updated_at, COALESCE(r.last_end, s.updated_at))`,
    );
    await queryRunner.query(
      `UPDATE chat_session s JOIN diagnosis_run r
         ON r.session_id = s.session_id AND r.created_at = s.last_run_at AND r.status <> 'RUNNING'
       SET s.last_query = LEFT(r.query, 200), s.last_outcome = r.status`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE chat_session DROP KEY idx_chat_session_owner_updated_id, ' +
        'ADD KEY idx_chat_session_owner_updated (owner_key_digest, updated_at), ' +
        'DROP COLUMN last_query, DROP COLUMN last_outcome, DROP COLUMN last_run_at, DROP COLUMN run_count',
    );
  }
}
