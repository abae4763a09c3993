import { MigrationInterface, QueryRunner } from 'typeorm';

/** All tables of the service's own database. Plain SQL that MySQL 8 and MariaDB >= 10.11 both accept. */
export class InitialSchema1764680000000 implements MigrationInterface {
  name = 'InitialSchema1764680000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';
    await queryRunner.query(`CREATE TABLE chat_session (
      session_id VARCHAR(64) NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (session_id)
    ) ${table}`);
    await queryRunner.query(`CREATE TABLE diagnosis_run (
      run_id VARCHAR(64) NOT NULL,
      session_id VARCHAR(64) NOT NULL,
      query TEXT NOT NULL,
      intent VARCHAR(32) NULL,
      status VARCHAR(16) NOT NULL,
      release_outcome VARCHAR(16) NULL,
      published_result JSON NULL,
      conclusion TEXT NULL,
      fallback_reason VARCHAR(64) NULL,
      error_code VARCHAR(64) NULL,
      budget_exhausted_reason VARCHAR(64) NULL,
      model_calls INT UNSIGNED NOT NULL DEFAULT 0,
      tool_calls INT UNSIGNED NOT NULL DEFAULT 0,
      input_tokens INT UNSIGNED NOT NULL DEFAULT 0,
      output_tokens INT UNSIGNED NOT NULL DEFAULT 0,
      total_tokens INT UNSIGNED NOT NULL DEFAULT 0,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      ended_at DATETIME(3) NULL,
      duration_ms INT UNSIGNED NULL,
      PRIMARY KEY (run_id),
      KEY idx_diagnosis_run_session_created (session_id, created_at),
      CONSTRAINT fk_diagnosis_run_session FOREIGN KEY (session_id)
        REFERENCES chat_session (session_id) ON DELETE CASCADE
    ) ${table}`);
    await queryRunner.query(`CREATE TABLE agent_step (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
      run_id VARCHAR(64) NOT NULL,
      step_index INT UNSIGNED NOT NULL,
      role VARCHAR(32) NOT NULL,
      attempt TINYINT UNSIGNED NOT NULL DEFAULT 1,
      status VARCHAR(16) NOT NULL,
      error_code VARCHAR(64) NULL,
      finish_reason VARCHAR(32) NULL,
      tool_call_count SMALLINT UNSIGNED NOT NULL DEFAULT 0,
      input_tokens INT UNSIGNED NOT NULL DEFAULT 0,
      output_tokens INT UNSIGNED NOT NULL DEFAULT 0,
      total_tokens INT UNSIGNED NOT NULL DEFAULT 0,
      started_at DATETIME(3) NOT NULL,
      duration_ms INT UNSIGNED NOT NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_agent_step_run_step (run_id, step_index),
      CONSTRAINT fk_agent_step_run FOREIGN KEY (run_id) REFERENCES diagnosis_run (run_id) ON DELETE CASCADE
    ) ${table}`);
    await queryRunner.query(`CREATE TABLE tool_invocation (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
      run_id VARCHAR(64) NOT NULL,
      tool_call_id VARCHAR(128) NULL,
      tool_name VARCHAR(64) NOT NULL,
      status VARCHAR(16) NOT NULL,
      evidence_status VARCHAR(16) NOT NULL,
      error_code VARCHAR(64) NULL,
      arg_summary JSON NULL,
      request_bytes INT UNSIGNED NOT NULL DEFAULT 0,
      raw_bytes INT UNSIGNED NOT NULL DEFAULT 0,
      agent_result_bytes INT UNSIGNED NOT NULL DEFAULT 0,
      truncated BOOLEAN NOT NULL DEFAULT FALSE,
      started_at DATETIME(3) NOT NULL,
      duration_ms INT UNSIGNED NOT NULL,
      PRIMARY KEY (id),
      KEY idx_tool_invocation_run (run_id),
      CONSTRAINT fk_tool_invocation_run FOREIGN KEY (run_id) REFERENCES diagnosis_run (run_id) ON DELETE CASCADE
    ) ${table}`);
    await queryRunner.query(`CREATE TABLE diagnosis_trace_event (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
      run_id VARCHAR(64) NOT NULL,
      phase VARCHAR(32) NOT NULL,
      event_type VARCHAR(64) NOT NULL,
      details JSON NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (id),
      KEY idx_trace_event_run (run_id, id),
      CONSTRAINT fk_trace_event_run FOREIGN KEY (run_id) REFERENCES diagnosis_run (run_id) ON DELETE CASCADE
    ) ${table}`);
    await queryRunner.query(`CREATE TABLE agent_reasoning_audit (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
      run_id VARCHAR(64) NOT NULL,
      step_index INT UNSIGNED NOT NULL,
      role VARCHAR(32) NOT NULL,
      content_source VARCHAR(32) NOT NULL,
      reasoning_content LONGTEXT NULL,
      assistant_text LONGTEXT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (id),
      UNIQUE KEY uq_reasoning_audit_run_step (run_id, step_index),
      KEY idx_reasoning_audit_created (created_at),
      CONSTRAINT fk_reasoning_audit_run FOREIGN KEY (run_id) REFERENCES diagnosis_run (run_id) ON DELETE CASCADE
    ) ${table}`);
    await queryRunner.query(`CREATE TABLE knowledge_document (
      document_id VARCHAR(64) NOT NULL,
      title VARCHAR(255) NOT NULL,
      category VARCHAR(64) NULL,
      fault_source VARCHAR(128) NULL,
      file_name VARCHAR(255) NOT NULL,
      stored_path VARCHAR(512) NOT NULL,
      content_type VARCHAR(64) NOT NULL,
      size_bytes INT UNSIGNED NOT NULL,
      status VARCHAR(16) NOT NULL,
      chunk_count INT UNSIGNED NOT NULL DEFAULT 0,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (document_id),
      KEY idx_knowledge_document_status (status),
      KEY idx_knowledge_document_fault_source (fault_source)
    ) ${table}`);
    await queryRunner.query(`CREATE TABLE knowledge_chunk (
      chunk_id VARCHAR(96) NOT NULL,
      document_id VARCHAR(64) NOT NULL,
      chunk_index INT UNSIGNED NOT NULL,
      breadcrumb VARCHAR(512) NOT NULL,
      content MEDIUMTEXT NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (chunk_id),
      UNIQUE KEY uq_knowledge_chunk_doc_index (document_id, chunk_index),
      CONSTRAINT fk_knowledge_chunk_document FOREIGN KEY (document_id)
        REFERENCES knowledge_document (document_id) ON DELETE CASCADE
    ) ${table}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'knowledge_chunk',
      'knowledge_document',
      'agent_reasoning_audit',
      'diagnosis_trace_event',
      'tool_invocation',
      'agent_step',
      'diagnosis_run',
      'chat_session',
    ]) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
