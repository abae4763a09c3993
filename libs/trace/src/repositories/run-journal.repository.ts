import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolConnection } from 'mysql2';
import { DataSource } from 'typeorm';
import { ServiceMetrics } from '@app/metrics';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';
import { AuditCipher } from '../audit/audit-cipher';
import { databaseConfig, DatabaseConfig } from '../config/database.config';
import { packetLimitOf } from '../database/connection-pin';
import { classifyDatabaseError, describeDatabaseError, outcomeUnknown } from '../database/database-errors';
import { cutText } from '../database/text-bounds';
import { AUDIT_CIPHER } from './agent-step.repository';
import { JournalBatch, JournalStore, RunJournal } from './run-journal';
import type { FinishRun } from './run.repository';
import { sessionSummaryUpdate } from './session-summary';

/** One parameterised statement; values are bound by the driver, never spliced into the text. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * The most of one audit text (reasoning or assistant text of one model step) the journal stores, in code
 * points; a longer text is stored cut, with a marker saying so.
 */
export const AUDIT_TEXT_MAX_CHARS = 200_000;
const AUDIT_CUT_MARKER = '\n[cut: the text exceeded the audit limit of 200000 characters]';
/** What stands for audit text that a write had to leave out to fit the server's max_allowed_packet. */
export const AUDIT_TEXT_LEFT_OUT =
  "[not stored: the journal write exceeded the database's max_allowed_packet]";
/** The run row's conclusion column (TEXT: 65,535 bytes) holds at most this many code points of 4 bytes. */
const CONCLUSION_MAX_CHARS = 16_000;

const auditText = (text: string | null) =>
  text === null ? null : cutText(text, AUDIT_TEXT_MAX_CHARS, AUDIT_CUT_MARKER);

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
      finish.conclusion == null ? null : cutText(finish.conclusion, CONCLUSION_MAX_CHARS, '…'),
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
          cipher.seal(auditText(audit.reasoningContent), { ...cell, column: 'reasoning_content' }),
          cipher.seal(auditText(audit.assistantText), { ...cell, column: 'assistant_text' }),
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

/** The same batch with its audit texts replaced by a marker: what still fits when the full one did not. */
function withoutAuditText(batch: JournalBatch): JournalBatch {
  return {
    ...batch,
    steps: batch.steps.map(({ step, audit }) => ({
      step,
      audit: {
        ...audit,
        reasoningContent: audit.reasoningContent === null ? null : AUDIT_TEXT_LEFT_OUT,
        assistantText: audit.assistantText === null ? null : AUDIT_TEXT_LEFT_OUT,
      },
    })),
  };
}

/** Only the run row's own changes: the terminal write that must succeed when the rows cannot. */
function runRowOnly(batch: JournalBatch): JournalBatch {
  return {
    events: [],
    steps: [],
    invocations: [],
    intent: batch.intent,
    budgetExhausted: batch.budgetExhausted,
  };
}

const hasRows = (batch: JournalBatch) =>
  batch.events.length + batch.steps.length + batch.invocations.length > 0;

/** No pooled connection within the write's time limit: nothing was sent, so nothing was written. */
class NoConnectionInTime extends Error {
  override readonly name = 'NoConnectionInTime';
  readonly code = 'SUPERBIZ_NO_CONNECTION_IN_TIME';
  constructor(timeoutMs: number) {
    super(`no database connection within ${timeoutMs} ms`);
  }
}

/** Thrown before sending a packet the server would refuse (and answer by closing the connection). */
class PacketTooLarge extends Error {
  override readonly name = 'PacketTooLarge';
  readonly code = 'ER_NET_PACKET_TOO_LARGE';
}

/**
 * Writes run journals: each flush, and the terminal write, is one transaction sent as one multi-statement
 * packet of plain parameterised statements (no query builder on this hot path): one round trip instead of
 * one per statement plus BEGIN and COMMIT. When the run had already left RUNNING (closed by the lease
 * reaper), the journal's rows are still written — they record model and tool calls that did happen — but
 * without RUN_FINISHED, and the caller is told the terminal state was not stored.
 *
 * Every write is bounded in time by its run's deadline plus DB_WRITE_GRACE_MS (and each statement's
 * lock waits by DB_LOCK_WAIT_TIMEOUT_SECONDS, pinned on the connection), so a run ends near its deadline
 * whatever the database does. A write the server refuses for its size or a value is written again
 * without the audit texts, then with the run row only, so a run never loses its terminal state to its
 * own rows; a deadlock or lock-wait victim is written once more (the write is conditional on RUNNING, so
 * this cannot store two states); and when the outcome of the terminal write is unknown (the connection
 * broke, or the time limit passed), the row is read back before the caller is told anything.
 */
@Injectable()
export class RunJournalRepository implements JournalStore {
  private readonly logger = new Logger(RunJournalRepository.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AUDIT_CIPHER) private readonly cipher: AuditCipher,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
    private readonly metrics: ServiceMetrics,
  ) {}

  /**
   * A new, empty journal for the run, counting into the service's metrics; its writes are bounded by
   * `deadlineAt` (epoch ms) plus the grace.
   */
  open(runId: string, deadlineAt: number | null = null): RunJournal {
    return new RunJournal(runId, this, deadlineAt, this.metrics.run());
  }

  async write(runId: string, batch: JournalBatch, deadlineAt: number | null = null): Promise<void> {
    const statements = (variant: JournalBatch) => {
      const update = runUpdate(runId, variant);
      return [...(update ? [update] : []), ...journalInserts(runId, variant, this.cipher)];
    };
    // Sealing audit text costs CPU: the batch's statements are built once, a fallback's only when needed.
    const first = statements(batch);
    if (first.length === 0) return;
    await this.withFallbacks(runId, batch, deadlineAt, async (variant) => {
      const list = variant === batch ? first : statements(variant);
      if (list.length > 0) await this.transaction(list, this.timeoutMs(deadlineAt));
    });
  }

  progressWriteFailed(runId: string, error: unknown): boolean {
    // A write that timed out or lost its connection may have committed: writing it again could store its rows twice.
    const unstored = !outcomeUnknown(classifyDatabaseError(error));
    this.logger.warn(
      `a live-progress write of run ${runId} failed (${describeDatabaseError(error)}); the run goes on, ${unstored ? 'its rows go with the next write' : 'its rows may be missing from the trace'}`,
    );
    return unstored;
  }

  lateWriteFailed(runId: string, error: unknown): void {
    this.logger.warn(
      `rows recorded after the terminal state of run ${runId} could not be written: ${describeDatabaseError(error)}`,
    );
  }

  async finish(
    runId: string,
    batch: JournalBatch,
    finish: FinishRun,
    deadlineAt: number | null = null,
  ): Promise<boolean> {
    try {
      return await this.withFallbacks(runId, batch, deadlineAt, async (variant) => {
        const results = await this.transaction(
          finishStatements(runId, variant, finish, this.cipher),
          this.timeoutMs(deadlineAt),
        );
        // START TRANSACTION, the statements, COMMIT: the SELECT of the flag is the one before COMMIT.
        const flag = results.at(-2) as { finished: number | string | null }[];
        return Number(flag[0]?.finished ?? 0) > 0;
      });
    } catch (error) {
      if (!outcomeUnknown(classifyDatabaseError(error))) throw error;
      // The commit may have happened: what the client hears must be what MySQL holds.
      const stored = await this.readBack(runId, finish);
      this.logger.warn(
        `the terminal write of run ${runId} got no acknowledgement (${describeDatabaseError(error)}); read back: ${stored ? 'stored' : 'not stored'}`,
      );
      if (stored) return true;
      throw error;
    }
  }

  /**
   * Runs `write` with the batch, then — when the server refused it for its size or a value — without the
   * audit texts, then with the run row only; a deadlock or lock-wait victim is tried once more as it was.
   * Each fallback is logged, naming the run and the database error.
   */
  private async withFallbacks<T>(
    runId: string,
    batch: JournalBatch,
    deadlineAt: number | null,
    write: (variant: JournalBatch) => Promise<T>,
  ): Promise<T> {
    const variants = [batch, withoutAuditText(batch), runRowOnly(batch)];
    let retried = false;
    for (let index = 0; ;) {
      try {
        return await write(variants[index]);
      } catch (error) {
        const failure = classifyDatabaseError(error);
        const timeLeft = deadlineAt === null || Date.now() < deadlineAt + this.database.writeGraceMs;
        if ((failure === 'DEADLOCK' || failure === 'LOCK_WAIT_TIMEOUT') && !retried && timeLeft) {
          retried = true;
          this.logger.warn(
            `a journal write of run ${runId} failed (${describeDatabaseError(error)}); tried once more`,
          );
          continue;
        }
        const smaller = failure === 'PACKET_TOO_LARGE' || failure === 'VALUE_REFUSED';
        if (smaller && index < variants.length - 1 && hasRows(variants[index])) {
          index += 1;
          this.logger.warn(
            `a journal write of run ${runId} was refused (${describeDatabaseError(error)}); written again ${index === 1 ? 'without its audit texts' : 'with the run row only, its trace rows left out'}`,
          );
          continue;
        }
        throw error;
      }
    }
  }

  /** Whether the run row holds this terminal state (status and error code), read on a fresh connection. */
  private async readBack(runId: string, finish: FinishRun): Promise<boolean> {
    let connection: PoolConnection | undefined;
    try {
      connection = (await (this.dataSource.driver as MysqlDriver).obtainMasterConnection()) as PoolConnection;
      const rows = await new Promise<{ status: string; error_code: string | null }[]>((resolve, reject) =>
        connection!.query(
          {
            sql: 'SELECT status, error_code FROM diagnosis_run WHERE run_id = ?',
            values: [runId],
            timeout: this.database.writeGraceMs,
          },
          (error, results) =>
            error ? reject(error) : resolve(results as { status: string; error_code: string | null }[]),
        ),
      );
      connection.release();
      const [row] = rows;
      return row?.status === finish.status && (row?.error_code ?? null) === (finish.errorCode ?? null);
    } catch (error) {
      connection?.destroy();
      this.logger.warn(`the run row of run ${runId} could not be read back: ${describeDatabaseError(error)}`);
      return false;
    }
  }

  /**
   * A pooled connection within the write's time limit: with no idle connection the pool opens one, and a
   * database that accepts but never answers would hold that past the run's deadline. One that arrives
   * later goes back to the pool unused.
   */
  private async connectionWithin(timeoutMs: number): Promise<PoolConnection> {
    const obtained = (
      this.dataSource.driver as MysqlDriver
    ).obtainMasterConnection() as Promise<PoolConnection>;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new NoConnectionInTime(timeoutMs)), timeoutMs);
    });
    try {
      return await Promise.race([obtained, limit]);
    } catch (error) {
      if (error instanceof NoConnectionInTime)
        obtained.then(
          (late) => late.release(),
          () => undefined,
        );
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private timeoutMs(deadlineAt: number | null): number {
    const remaining = deadlineAt === null ? 0 : Math.max(0, deadlineAt - Date.now());
    return remaining + this.database.writeGraceMs;
  }

  /**
   * The statements between START TRANSACTION and COMMIT in one packet, on a connection of the service
   * pool (the driver's own, without TypeORM's per-query runner and events). MySQL stops at the first
   * failing statement and leaves the transaction open, so a failure rolls back on the same connection
   * before it goes back to the pool; a connection that cannot roll back, or whose statement outlived the
   * time limit (it may still be running), is destroyed, never reused: the server rolls back what it held.
   */
  private async transaction(statements: Statement[], timeoutMs: number): Promise<unknown[]> {
    const sql = ['START TRANSACTION', ...statements.map((statement) => statement.sql), 'COMMIT'].join(';\n');
    const params = statements.flatMap((statement) => statement.params);
    const connection = await this.connectionWithin(timeoutMs);
    const limit = packetLimitOf(connection);
    if (limit !== undefined && exceedsPacket(connection, sql, params, limit)) {
      connection.release();
      throw new PacketTooLarge(`the journal packet exceeds max_allowed_packet (${limit} bytes)`);
    }
    const query = (text: string, values?: unknown[], timeout?: number) =>
      new Promise<unknown>((resolve, reject) =>
        connection.query({ sql: text, values, timeout }, (error, results) =>
          error ? reject(error) : resolve(results),
        ),
      );
    try {
      const results = (await query(sql, params, timeoutMs)) as unknown[];
      connection.release();
      return results;
    } catch (error) {
      if (outcomeUnknown(classifyDatabaseError(error))) {
        connection.destroy();
        throw error;
      }
      await query('ROLLBACK', undefined, this.database.writeGraceMs).then(
        () => connection.release(),
        (rollbackError: unknown) => {
          this.logger.warn(
            `a journal transaction failed and could not be rolled back (${describeDatabaseError(rollbackError)}); its connection is closed`,
          );
          connection.destroy();
        },
      );
      throw error;
    }
  }
}

/**
 * Whether the formatted packet would exceed the server's limit. Formatting costs a copy of the packet,
 * so it is done only when the values' raw size could come near the limit (escaping at most doubles it).
 */
function exceedsPacket(connection: PoolConnection, sql: string, params: unknown[], limit: number): boolean {
  let raw = sql.length;
  for (const value of params) if (typeof value === 'string') raw += Buffer.byteLength(value);
  if (raw * 2 + 1024 < limit) return false;
  return Buffer.byteLength(connection.format(sql, params)) + 1024 >= limit;
}
