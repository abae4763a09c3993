import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { ChatSessionEntity } from '../entities/chat-session.entity';
import { DiagnosisRunEntity } from '../entities/diagnosis-run.entity';

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

  findRun(runId: string): Promise<DiagnosisRunEntity | null> {
    return this.runs.findOneBy({ runId });
  }
}
