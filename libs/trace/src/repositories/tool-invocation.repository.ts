import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ToolInvocationEntity } from '../entities/tool-invocation.entity';

export type ToolInvocationRecord = Omit<ToolInvocationEntity, 'id'>;

@Injectable()
export class ToolInvocationRepository {
  constructor(
    @InjectRepository(ToolInvocationEntity) private readonly invocations: Repository<ToolInvocationEntity>,
  ) {}

  async record(invocation: ToolInvocationRecord): Promise<void> {
    await this.invocations.createQueryBuilder().insert().values(invocation).updateEntity(false).execute();
  }

  listForRun(runId: string): Promise<ToolInvocationEntity[]> {
    return this.invocations.find({ where: { runId }, order: { id: 'ASC' } });
  }
}
