import { Injectable } from '@nestjs/common';
import { RunRepository, TimelineRepository } from '@app/trace';
import { BudgetExhausted } from './harness-errors';
import { RunContext } from './run-context';

/** Writes a hit budget limit onto the run (first one wins) and into its timeline. */
@Injectable()
export class BudgetAudit {
  constructor(
    private readonly runs: RunRepository,
    private readonly timeline: TimelineRepository,
  ) {}

  async record(ctx: RunContext, error: BudgetExhausted): Promise<void> {
    await this.runs.recordBudgetExhausted(ctx.runId, error.limit);
    await this.timeline.append(ctx.runId, 'BUDGET', 'BUDGET_EXHAUSTED', { limit: error.limit });
  }
}
