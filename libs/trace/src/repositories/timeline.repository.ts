import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DiagnosisTraceEventEntity, TraceDetails } from '../entities/diagnosis-trace-event.entity';
import { boundDetails } from './bounded-details';

export const TIMELINE_PHASES = [
  'RUN',
  'ROUTING',
  'AGENT',
  'TOOL',
  'EVIDENCE',
  'SEMANTIC',
  'RELEASE',
  'BUDGET',
] as const;
export type TimelinePhase = (typeof TIMELINE_PHASES)[number];

@Injectable()
export class TimelineRepository {
  constructor(
    @InjectRepository(DiagnosisTraceEventEntity)
    private readonly events: Repository<DiagnosisTraceEventEntity>,
  ) {}

  async append(
    runId: string,
    phase: TimelinePhase,
    eventType: string,
    details?: TraceDetails,
  ): Promise<void> {
    await this.events
      .createQueryBuilder()
      .insert()
      .values({ runId, phase, eventType, details: boundDetails(details) })
      .updateEntity(false)
      .execute();
  }

  listForRun(runId: string): Promise<DiagnosisTraceEventEntity[]> {
    return this.events.find({ where: { runId }, order: { id: 'ASC' } });
  }
}
