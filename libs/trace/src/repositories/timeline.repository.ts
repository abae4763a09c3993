import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DiagnosisTraceEventEntity } from '../entities/diagnosis-trace-event.entity';

/** Reads a run's timeline; runs write theirs through their RunJournal. */
@Injectable()
export class TimelineRepository {
  constructor(
    @InjectRepository(DiagnosisTraceEventEntity)
    private readonly events: Repository<DiagnosisTraceEventEntity>,
  ) {}

  listForRun(runId: string): Promise<DiagnosisTraceEventEntity[]> {
    return this.events.find({ where: { runId }, order: { id: 'ASC' } });
  }
}
