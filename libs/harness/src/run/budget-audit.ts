import { Injectable } from '@nestjs/common';
import { BudgetExhausted } from './harness-errors';
import { RunContext } from './run-context';

/** Records a hit budget limit onto the run (first one wins) and into its timeline. */
@Injectable()
export class BudgetAudit {
  record(ctx: RunContext, error: BudgetExhausted): void {
    ctx.journal.budgetExhausted(error.limit);
    ctx.journal.event('BUDGET', 'BUDGET_EXHAUSTED', { limit: error.limit });
  }
}
