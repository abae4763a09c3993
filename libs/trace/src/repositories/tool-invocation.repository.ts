import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ToolInvocationEntity } from '../entities/tool-invocation.entity';

/** Reads a run's tool invocations; runs write theirs through their RunJournal. */
@Injectable()
export class ToolInvocationRepository {
  constructor(
    @InjectRepository(ToolInvocationEntity) private readonly invocations: Repository<ToolInvocationEntity>,
  ) {}

  listForRun(runId: string): Promise<ToolInvocationEntity[]> {
    return this.invocations.find({ where: { runId }, order: { id: 'ASC' } });
  }
}
