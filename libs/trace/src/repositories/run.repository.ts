import { Inject, Injectable } from '@nestjs/common';
import { InjectEntityManager, InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Not, Raw, Repository } from 'typeorm';
import { databaseConfig, DatabaseConfig } from '../config/database.config';
import { traceConfig, TraceConfig } from '../config/trace.config';
import { ADMISSION_DATA_SOURCE } from '../database/data-source-options';
import { AnnouncedEnding, RunOwner } from './run-owner';
import { ChatSessionEntity, SessionOrigin } from '../entities/chat-session.entity';
import { DiagnosisRunEntity, PublishedResult, RunStatus } from '../entities/diagnosis-run.entity';

export type DiagnosisRun = DiagnosisRunEntity;

/** An admission statement outlived its limit; `code` classifies it as a timed-out database call. */
export class AdmissionTimedOut extends Error {
  override readonly name = 'AdmissionTimedOut';
  readonly code = 'PROTOCOL_SEQUENCE_TIMEOUT';
  constructor(limitMs: number) {
    super(`the admission rows were not written within ${limitMs} ms`);
  }
}

/** Everything the run records when it ends; written once, by its RunJournal (a run leaves RUNNING exactly one time). */
export interface FinishRun {
  status: Exclude<RunStatus, 'RUNNING'>;
  releaseOutcome: Exclude<RunStatus, 'RUNNING'>;
  conclusion?: string | null;
  publishedResult?: PublishedResult | null;
  fallbackReason?: string | null;
  errorCode?: string | null;
  modelCalls: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  durationMs: number;
}

export interface StartRun {
  sessionId: string;
  runId: string;
  query: string;
  /** The API key (SHA-256 hex) the session belongs to; set when the session is created, never changed. */
  ownerKeyDigest: string;
  /** Set when the session is created: an alert group's session carries its origin and common labels. */
  origin?: SessionOrigin;
  alertLabels?: Record<string, string> | null;
}

/** One row of a key's session list: the chat_session row itself (its list columns). */
export type OwnedSession = Pick<
  ChatSessionEntity,
  | 'sessionId'
  | 'createdAt'
  | 'updatedAt'
  | 'runCount'
  | 'lastRunAt'
  | 'lastOutcome'
  | 'lastQuery'
  | 'origin'
  | 'alertLabels'
>;

/** Where a page of the session list ends, in (updated_at DESC, session_id DESC) order. */
export interface SessionPosition {
  updatedAt: Date;
  sessionId: string;
}

/** Where a page of a session's run list ends, in (created_at DESC, run_id DESC) order. */
export interface RunPosition {
  createdAt: Date;
  runId: string;
}

@Injectable()
export class RunRepository {
  constructor(
    @InjectRepository(ChatSessionEntity) private readonly sessions: Repository<ChatSessionEntity>,
    @InjectRepository(DiagnosisRunEntity) private readonly runs: Repository<DiagnosisRunEntity>,
    @Inject(traceConfig.KEY) private readonly config: TraceConfig,
    private readonly owner: RunOwner,
    /** The admission pool: what a request waits for before its first event never queues behind trace writes. */
    @InjectEntityManager(ADMISSION_DATA_SOURCE) private readonly admission: EntityManager,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
  ) {}

  /**
   * An admission statement bounded by DB_WRITE_GRACE_MS: a request whose rows cannot be written in time
   * is answered 503 at once instead of holding a chat slot. A late insert that still lands leaves a run
   * no replica renews, which the lease reaper closes as ABANDONED.
   */
  private admit<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new AdmissionTimedOut(this.database.writeGraceMs)),
        this.database.writeGraceMs,
      );
    });
    return Promise.race([work, limit]).finally(() => clearTimeout(timer));
  }

  /**
   * Creates the session on first use (owned by the calling key) and the run in RUNNING state, owned by
   * this replica under a lease. Plain statements: this is on every request's way to its first event.
   */
  async startRun({
    sessionId,
    runId,
    query,
    ownerKeyDigest,
    origin = 'CHAT',
    alertLabels = null,
  }: StartRun): Promise<void> {
    // One packet, two autocommit statements (MySQL stops at the first that fails). The run's lease is on
    // the database clock, so replicas with skewed clocks agree on when it ran out; SYSDATE, not NOW:
    // NOW is the statement's start, so a write that waited for a lock would date its lease too early.
    await this.admit(
      this.admission.query(
        `INSERT INTO chat_session (session_id, owner_key_digest, origin, alert_labels) VALUES (?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE updated_at = CURRENT_TIMESTAMP(3);
       INSERT INTO diagnosis_run (run_id, session_id, query, status, owner_id, lease_expires_at)
       VALUES (?, ?, ?, 'RUNNING', ?, SYSDATE(3) + INTERVAL ? MICROSECOND)`,
        [
          sessionId,
          ownerKeyDigest,
          origin,
          alertLabels === null ? null : JSON.stringify(alertLabels),
          runId,
          sessionId,
          query,
          this.owner.id,
          this.config.runLease.leaseMs * 1000,
        ],
      ),
    );
    this.owner.adopt(runId);
  }

  /**
   * The run's terminal write failed or went unacknowledged and its client was told `ending`: stored by
   * the next lease heartbeat, so MySQL ends up holding what the client heard.
   */
  endingNotStored(runId: string, ending: AnnouncedEnding): void {
    this.owner.endingNotStored(runId, ending);
  }

  /** This replica no longer executes the run: its lease is no longer renewed (see RunOwner). */
  releaseRun(runId: string): void {
    this.owner.release(runId);
  }

  findSession(sessionId: string): Promise<ChatSessionEntity | null> {
    return this.sessions.findOneBy({ sessionId });
  }

  /** The session if it exists and belongs to the key; a session of another key is as absent as an unknown one. */
  async findOwnedSession(sessionId: string, ownerKeyDigest: string): Promise<ChatSessionEntity | null> {
    return this.admit(this.admission.findOneBy(ChatSessionEntity, { sessionId, ownerKeyDigest }));
  }

  /**
   * A page of the key's sessions, last activity first, after `after` (exclusive): a range read of
   * idx_chat_session_owner_updated_id in index order, so its cost does not grow with the key's session
   * count (no count, grouping or sort). `next` is the last row's position when more rows follow.
   */
  async listOwnedSessions(
    ownerKeyDigest: string,
    limit: number,
    after: SessionPosition | null,
  ): Promise<{ sessions: OwnedSession[]; next: SessionPosition | null }> {
    const rows = (await this.sessions.query(
      `SELECT session_id, created_at, updated_at, run_count, last_run_at, last_outcome, last_query,
         origin, alert_labels
       FROM chat_session FORCE INDEX (idx_chat_session_owner_updated_id)
       WHERE owner_key_digest = ?${after ? ' AND updated_at <= ? AND (updated_at < ? OR (updated_at = ? AND session_id < ?))' : ''}
       ORDER BY updated_at DESC, session_id DESC
       LIMIT ?`,
      // MariaDB 10.11 otherwise reads the owner's rows from the newest down to the cursor (ref on the
      // owner: 5,000 rows for a page 5,000 deep); the index hint and the redundant `updated_at <= ?`
      // make it a range that starts at the cursor (21 rows).
      [
        ownerKeyDigest,
        ...(after ? [after.updatedAt, after.updatedAt, after.updatedAt, after.sessionId] : []),
        limit + 1,
      ],
    )) as {
      session_id: string;
      created_at: Date;
      updated_at: Date;
      run_count: number | string;
      last_run_at: Date | null;
      last_outcome: OwnedSession['lastOutcome'];
      last_query: string | null;
      origin: OwnedSession['origin'];
      alert_labels: string | Record<string, string> | null;
    }[];
    const sessions = rows.slice(0, limit).map((row) => ({
      sessionId: row.session_id,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      runCount: Number(row.run_count),
      lastRunAt: row.last_run_at,
      lastOutcome: row.last_outcome,
      lastQuery: row.last_query,
      origin: row.origin,
      alertLabels:
        typeof row.alert_labels === 'string'
          ? (JSON.parse(row.alert_labels) as Record<string, string>)
          : row.alert_labels,
    }));
    const last = sessions[sessions.length - 1];
    return {
      sessions,
      next: rows.length > limit && last ? { updatedAt: last.updatedAt, sessionId: last.sessionId } : null,
    };
  }

  findRun(runId: string): Promise<DiagnosisRunEntity | null> {
    return this.runs.findOneBy({ runId });
  }

  /** The previous run of the session (for the router's last_intent / last_user_query). */
  findLatestRunBefore(sessionId: string, runId: string): Promise<DiagnosisRunEntity | null> {
    return this.runs.findOne({ where: { sessionId, runId: Not(runId) }, order: { createdAt: 'DESC' } });
  }

  /**
   * docs/architecture.md "Previous turn": the session's immediately previous completed turn — the newest run started no later than
   * `runId` that has left RUNNING (runs still in flight are not turns yet). The caller decides whether it
   * was safely published; an older published run behind it never counts.
   */
  findPreviousCompletedRun(sessionId: string, runId: string): Promise<DiagnosisRunEntity | null> {
    return this.runs.findOne({
      where: {
        sessionId,
        runId: Not(runId),
        status: Not('RUNNING'),
        createdAt: Raw(
          (column) => `${column} <= (SELECT c.created_at FROM diagnosis_run c WHERE c.run_id = :runId)`,
          {
            runId,
          },
        ),
      },
      order: { createdAt: 'DESC' },
    });
  }

  /**
   * A page of the session's runs, newest first, after `after` (exclusive): a range read of
   * idx_diagnosis_run_session_created (its entries end in the primary key, run_id, which breaks ties), so
   * a page deep in a long session costs what the first does. `next` is the last row's position when more
   * rows follow.
   */
  async listSessionRuns(
    sessionId: string,
    limit: number,
    after: RunPosition | null,
  ): Promise<{ runs: DiagnosisRunEntity[]; next: RunPosition | null }> {
    const query = this.runs
      .createQueryBuilder('run')
      .useIndex('idx_diagnosis_run_session_created')
      .where('run.session_id = :sessionId', { sessionId });
    if (after) {
      // The redundant `created_at <= :at` makes the range start at the cursor (as in listOwnedSessions).
      query.andWhere(
        'run.created_at <= :at AND (run.created_at < :at OR (run.created_at = :at AND run.run_id < :runId))',
        { at: after.createdAt, runId: after.runId },
      );
    }
    const rows = await query
      .orderBy('run.created_at', 'DESC')
      .addOrderBy('run.run_id', 'DESC')
      .limit(limit + 1)
      .getMany();
    const runs = rows.slice(0, limit);
    const last = runs[runs.length - 1];
    return {
      runs,
      next: rows.length > limit && last ? { createdAt: last.createdAt, runId: last.runId } : null,
    };
  }
}
