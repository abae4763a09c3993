import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThanOrEqual, Not, Repository } from 'typeorm';
import { ChatSessionEntity } from '../entities/chat-session.entity';
import { DiagnosisRunEntity, Intent, PublishedResult, RunStatus } from '../entities/diagnosis-run.entity';

export type DiagnosisRun = DiagnosisRunEntity;

/** Everything the run records when it ends; written once (a run leaves RUNNING exactly one time). */
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
}

@Injectable()
export class RunRepository {
  constructor(
    @InjectRepository(ChatSessionEntity) private readonly sessions: Repository<ChatSessionEntity>,
    @InjectRepository(DiagnosisRunEntity) private readonly runs: Repository<DiagnosisRunEntity>,
  ) {}

  /** Creates the session on first use and the run in RUNNING state. */
  async startRun({ sessionId, runId, query }: StartRun): Promise<void> {
    await this.sessions
      .createQueryBuilder()
      .insert()
      .values({ sessionId })
      .orUpdate(['updated_at'], ['session_id'])
      .execute();
    await this.runs.insert({ runId, sessionId, query, status: 'RUNNING' });
  }

  /** Keeps the first limit that was hit: later ones are consequences of it. */
  async recordBudgetExhausted(runId: string, reason: string): Promise<void> {
    await this.runs.update({ runId, budgetExhaustedReason: IsNull() }, { budgetExhaustedReason: reason });
  }

  findSession(sessionId: string): Promise<ChatSessionEntity | null> {
    return this.sessions.findOneBy({ sessionId });
  }

  findRun(runId: string): Promise<DiagnosisRunEntity | null> {
    return this.runs.findOneBy({ runId });
  }

  async setIntent(runId: string, intent: Intent): Promise<void> {
    await this.runs.update({ runId }, { intent });
  }

  /** Moves the run to its terminal state; returns false when it had already left RUNNING. */
  async finishRun(runId: string, finish: FinishRun): Promise<boolean> {
    const result = await this.runs.update(
      { runId, status: 'RUNNING' },
      {
        status: finish.status,
        releaseOutcome: finish.releaseOutcome,
        conclusion: finish.conclusion ?? null,
        publishedResult: finish.publishedResult ?? null,
        fallbackReason: finish.fallbackReason ?? null,
        errorCode: finish.errorCode ?? null,
        modelCalls: finish.modelCalls,
        toolCalls: finish.toolCalls,
        inputTokens: finish.inputTokens,
        outputTokens: finish.outputTokens,
        totalTokens: finish.totalTokens,
        durationMs: finish.durationMs,
        endedAt: new Date(),
      },
    );
    return (result.affected ?? 0) > 0;
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
  async findPreviousCompletedRun(sessionId: string, runId: string): Promise<DiagnosisRunEntity | null> {
    const current = await this.runs.findOne({ where: { runId }, select: { runId: true, createdAt: true } });
    if (!current) return null;
    return this.runs.findOne({
      where: {
        sessionId,
        runId: Not(runId),
        status: Not('RUNNING'),
        createdAt: LessThanOrEqual(current.createdAt),
      },
      order: { createdAt: 'DESC' },
    });
  }

  listSessionRuns(sessionId: string, limit: number, offset: number): Promise<DiagnosisRunEntity[]> {
    return this.runs.find({ where: { sessionId }, order: { createdAt: 'DESC' }, take: limit, skip: offset });
  }
}
