import { Inject, Injectable } from '@nestjs/common';
import { InjectEntityManager, InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Not, Raw, Repository } from 'typeorm';
import { traceConfig, TraceConfig } from '../config/trace.config';
import { ADMISSION_DATA_SOURCE } from '../database/data-source-options';
import { RunOwner } from './run-owner';
import { ChatSessionEntity } from '../entities/chat-session.entity';
import { DiagnosisRunEntity, PublishedResult, RunStatus } from '../entities/diagnosis-run.entity';

export type DiagnosisRun = DiagnosisRunEntity;

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
}

/** One row of a key's session list. */
export interface OwnedSession {
  sessionId: string;
  createdAt: Date;
  lastRunAt: Date | null;
  runCount: number;
  /** The newest run's query, cut to 200 characters. */
  lastQuery: string | null;
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
  ) {}

  /**
   * Creates the session on first use (owned by the calling key) and the run in RUNNING state, owned by
   * this replica under a lease. Plain statements: this is on every request's way to its first event.
   */
  async startRun({ sessionId, runId, query, ownerKeyDigest }: StartRun): Promise<void> {
    await this.admission.query(
      `INSERT INTO chat_session (session_id, owner_key_digest) VALUES (?, ?)
       ON DUPLICATE KEY UPDATE updated_at = CURRENT_TIMESTAMP(3)`,
      [sessionId, ownerKeyDigest],
    );
    // The database clock, so replicas with skewed clocks agree on when a lease ran out.
    await this.admission.query(
      `INSERT INTO diagnosis_run (run_id, session_id, query, status, owner_id, lease_expires_at)
       VALUES (?, ?, ?, 'RUNNING', ?, NOW(3) + INTERVAL ? MICROSECOND)`,
      [runId, sessionId, query, this.owner.id, this.config.runLease.leaseMs * 1000],
    );
    this.owner.adopt(runId);
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
    return this.admission.findOneBy(ChatSessionEntity, { sessionId, ownerKeyDigest });
  }

  /** The key's sessions, newest run first, with their run count and newest query. */
  async listOwnedSessions(
    ownerKeyDigest: string,
    limit: number,
    offset: number,
  ): Promise<{ sessions: OwnedSession[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.sessions.query(
        `SELECT s.session_id, s.created_at, MAX(r.created_at) AS last_run_at, COUNT(r.run_id) AS run_count,
           (SELECT LEFT(q.query, 200) FROM diagnosis_run q WHERE q.session_id = s.session_id
             ORDER BY q.created_at DESC, q.run_id DESC LIMIT 1) AS last_query
         FROM chat_session s LEFT JOIN diagnosis_run r ON r.session_id = s.session_id
         WHERE s.owner_key_digest = ?
         GROUP BY s.session_id, s.created_at
         ORDER BY last_run_at DESC, s.session_id DESC
         LIMIT ? OFFSET ?`,
        [ownerKeyDigest, limit, offset],
      ) as Promise<
        {
          session_id: string;
          created_at: Date;
          last_run_at: Date | null;
          run_count: number | string;
          last_query: string | null;
        }[]
      >,
      this.sessions.countBy({ ownerKeyDigest }),
    ]);
    return {
      total,
      sessions: rows.map((row) => ({
        sessionId: row.session_id,
        createdAt: row.created_at,
        lastRunAt: row.last_run_at,
        runCount: Number(row.run_count),
        lastQuery: row.last_query,
      })),
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
   * Seed §4.6: the session's immediately previous completed turn — the newest run started no later than
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

  listSessionRuns(sessionId: string, limit: number, offset: number): Promise<DiagnosisRunEntity[]> {
    return this.runs.find({ where: { sessionId }, order: { createdAt: 'DESC' }, take: limit, skip: offset });
  }
}
