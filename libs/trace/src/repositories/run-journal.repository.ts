import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolConnection } from 'mysql2';
import { DataSource } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';
import { AuditCipher } from '../audit/audit-cipher';
import { AUDIT_CIPHER } from './agent-step.repository';
import { JournalBatch, JournalStore, RunJournal } from './run-journal';
import type { FinishRun } from './run.repository';
import { sessionSummaryUpdate } from './session-summary';

/** One parameterised statement; values are bound by the driver, never spliced into the text. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** DATETIME(3) in UTC, as the DataSource (timezone 'Z') writes dates. */
const utc = (date: Date) => date.toISOString().slice(0, 23).replace('T', ' ');
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
const rows = (count: number, placeholders: string) => Array(count).fill(placeholders).join(', ');

/**
 * The run row's changes that ride along with a batch: the routed intent, the first budget limit, and on
 * the terminal write the terminal state itself, conditional on RUNNING (exactly one terminal state).
 */
export function runUpdate(runId: string, batch: JournalBatch, finish?: FinishRun): Statement | null {
  const sets: string[] = [];
  const params: unknown[] = [];
  if (finish) {
    sets.push(
      'status = ?, release_outcome = ?, conclusion = ?, published_result = ?, fallback_reason = ?, error_code = ?',
      'model_calls = ?, tool_calls = ?, input_tokens = ?, output_tokens = ?, total_tokens = ?, duration_ms = ?, ended_at = ?',
    );
    params.push(
      finish.status,
      finish.releaseOutcome,
      finish.conclusion ?? null,
      json(finish.publishedResult),
      finish.fallbackReason ?? null,
      finish.errorCode ?? null,
      finish.modelCalls,
      finish.toolCalls,
      finish.inputTokens,
      finish.outputTokens,
      finish.totalTokens,
      finish.durationMs,
      utc(new Date()),
    );
  }
  if (batch.intent !== null) {
    sets.push('intent = ?');
    params.push(batch.intent);
  }
  if (batch.budgetExhausted !== null) {
    sets.push('budget_exhausted_reason = COALESCE(budget_exhausted_reason, ?)');
    params.push(batch.budgetExhausted);
  }
  if (sets.length === 0) return null;
  const where = finish ? "run_id = ? AND status = 'RUNNING'" : 'run_id = ?';
  return { sql: `UPDATE diagnosis_run SET ${sets.join(', ')} WHERE ${where}`, params: [...params, runId] };
}

/**
 * One multi-row INSERT per table that has rows. Timeline rows take the database clock minus how long
 * ago they happened, so offsets stay true although they are written later, on the clock the run's own
 * created_at and lease use. Audit text is sealed here, bound to its run, step, column, role and content source.
 */
export function journalInserts(
  runId: string,
  batch: JournalBatch,
  cipher: AuditCipher,
  now = performance.now(),
): Statement[] {
  const statements: Statement[] = [];
  if (batch.events.length > 0) {
    statements.push({
      sql: `INSERT INTO diagnosis_trace_event (run_id, phase, event_type, details, created_at) VALUES ${rows(
        batch.events.length,
        '(?, ?, ?, ?, NOW(3) - INTERVAL ? MICROSECOND)',
      )}`,
      params: batch.events.flatMap((event) => [
        runId,
        event.phase,
        event.eventType,
        json(event.details),
        Math.max(0, Math.round(now - event.at)) * 1000,
      ]),
    });
  }
  if (batch.steps.length > 0) {
    statements.push({
      sql: `INSERT INTO agent_step (run_id, step_index, role, attempt, status, error_code, finish_reason, tool_call_count, input_tokens, output_tokens, total_tokens, started_at, duration_ms) VALUES ${rows(
        batch.steps.length,
        '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )}`,
      params: batch.steps.flatMap(({ step }) => [
        runId,
        step.stepIndex,
        step.role,
        step.attempt,
        step.status,
        step.errorCode,
        step.finishReason,
        step.toolCallCount,
        step.inputTokens,
        step.outputTokens,
        step.totalTokens,
        utc(step.startedAt),
        step.durationMs,
      ]),
    });
    statements.push({
      sql: `INSERT INTO agent_reasoning_audit (run_id, step_index, role, content_source, encryption_key_id, reasoning_content, assistant_text) VALUES ${rows(
        batch.steps.length,
        '(?, ?, ?, ?, ?, ?, ?)',
      )}`,
      params: batch.steps.flatMap(({ step, audit }) => {
        const cell = {
          runId,
          stepIndex: step.stepIndex,
          role: step.role,
          contentSource: audit.contentSource,
        };
        return [
          runId,
          step.stepIndex,
          step.role,
          audit.contentSource,
          cipher.keyId,
          cipher.seal(audit.reasoningContent, { ...cell, column: 'reasoning_content' }),
          cipher.seal(audit.assistantText, { ...cell, column: 'assistant_text' }),
        ];
      }),
    });
  }
  if (batch.invocations.length > 0) {
    statements.push({
      sql: `INSERT INTO tool_invocation (run_id, tool_call_id, tool_name, status, evidence_status, error_code, arg_summary, request_bytes, raw_bytes, agent_result_bytes, truncated, started_at, duration_ms) VALUES ${rows(
        batch.invocations.length,
        '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )}`,
      params: batch.invocations.flatMap((call) => [
        runId,
        call.toolCallId,
        call.toolName,
        call.status,
        call.evidenceStatus,
        call.errorCode,
        json(call.argSummary),
        call.requestBytes,
        call.rawBytes,
        call.agentResultBytes,
        call.truncated ? 1 : 0,
        utc(call.startedAt),
        call.durationMs,
      ]),
    });
  }
  return statements;
}

/** Set by the terminal UPDATE (its row count), read by the rows that exist only when it stored the state. */
const FINISHED = '@superbiz_run_finished';

/**
 * The terminal write as statements of one transaction: the conditional terminal UPDATE, its row count
 * kept in a session variable, the journal's rows, then RUN_FINISHED and the session-list summary only
 * when that UPDATE found the run RUNNING, and last the count, so the caller learns whether it was stored.
 */
export function finishStatements(
  runId: string,
  batch: JournalBatch,
  finish: FinishRun,
  cipher: AuditCipher,
): Statement[] {
  const summary = sessionSummaryUpdate(runId);
  return [
    runUpdate(runId, batch, finish)!,
    { sql: `SET ${FINISHED} = ROW_COUNT()`, params: [] },
    ...journalInserts(runId, batch, cipher),
    {
      sql: `INSERT INTO diagnosis_trace_event (run_id, phase, event_type, details, created_at)
        SELECT ?, 'RUN', 'RUN_FINISHED', ?, NOW(3) FROM DUAL WHERE ${FINISHED} > 0`,
      params: [runId, json({ status: finish.status })],
    },
    { sql: `${summary.sql}\n      WHERE ${FINISHED} > 0`, params: summary.params },
    { sql: `SELECT ${FINISHED} AS finished`, params: [] },
  ];
}

/**
 * Writes run journals: each flush, and the terminal write, is one transaction sent as one multi-statement
 * packet of plain parameterised statements (no query builder on this hot path): one round trip instead of
 * one per statement plus BEGIN and COMMIT. When the run had
 * already left RUNNING (closed by the lease reaper), the journal's rows are still written — they record
 * model and tool calls that did happen — but without RUN_FINISHED, and the caller is told the terminal
 * state was not stored.
 */
@Injectable()
export class RunJournalRepository implements JournalStore {
  private readonly logger = new Logger(RunJournalRepository.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AUDIT_CIPHER) private readonly cipher: AuditCipher,
  ) {}

  /** A new, empty journal for the run. */
  open(runId: string): RunJournal {
    return new RunJournal(runId, this);
  }

  async write(runId: string, batch: JournalBatch): Promise<void> {
    const update = runUpdate(runId, batch);
    const statements = [...(update ? [update] : []), ...journalInserts(runId, batch, this.cipher)];
    if (statements.length === 0) return;
    await this.transaction(statements);
  }

  lateWriteFailed(runId: string, error: unknown): void {
    this.logger.warn(
      `rows recorded after the terminal state of run ${runId} could not be written (${error instanceof Error ? error.name : 'unknown error'})`,
    );
  }

  async finish(runId: string, batch: JournalBatch, finish: FinishRun): Promise<boolean> {
    const results = await this.transaction(finishStatements(runId, batch, finish, this.cipher));
    // START TRANSACTION, the statements, COMMIT: the SELECT of the flag is the one before COMMIT.
    const flag = results.at(-2) as { finished: number | string | null }[];
    return Number(flag[0]?.finished ?? 0) > 0;
  }

  /**
   * The statements between START TRANSACTION and COMMIT in one packet, on a connection of the service
   * pool (the driver's own, without TypeORM's per-query runner and events). MySQL stops at the first
   * failing statement and leaves the transaction open, so a failure rolls back on the same connection
   * before it goes back to the pool; a connection that cannot roll back is destroyed, never reused.
   */
  private async transaction(statements: Statement[]): Promise<unknown[]> {
    const sql = ['START TRANSACTION', ...statements.map((statement) => statement.sql), 'COMMIT'].join(';\n');
    const params = statements.flatMap((statement) => statement.params);
    const connection = (await (
      this.dataSource.driver as MysqlDriver
    ).obtainMasterConnection()) as PoolConnection;
    const query = (text: string, values?: unknown[]) =>
      new Promise<unknown>((resolve, reject) =>
        connection.query(text, values, (error, results) => (error ? reject(error) : resolve(results))),
      );
    try {
      const results = (await query(sql, params)) as unknown[];
      connection.release();
      return results;
    } catch (error) {
      await query('ROLLBACK').then(
        () => connection.release(),
        (rollbackError: unknown) => {
          this.logger.warn(
            `a journal transaction failed and could not be rolled back (${rollbackError instanceof Error ? rollbackError.name : 'unknown error'}); its connection is closed`,
          );
          connection.destroy();
        },
      );
      throw error;
    }
  }
}
