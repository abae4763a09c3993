import { Inject, Injectable } from '@nestjs/common';
import { RunJournalRepository } from '@app/trace';
import { harnessConfig, HarnessConfig } from '../config/harness.config';
import { HarnessRetryPolicies } from '../retry/harness-retry-policies';
import { RunContext } from './run-context';

export interface NewRun {
  sessionId: string;
  runId: string;
  /** The client's signal: aborting it cancels the run. */
  parentSignal?: AbortSignal;
  /** Where the tools' time windows end instead of now (an alert's anchor). */
  timeAnchor?: Date | null;
  /** Resolves when the run's next model or tool call may go (RunContextInit.pace). */
  pace?: () => Promise<void>;
}

/** Builds RunContexts from the validated Harness configuration. */
@Injectable()
export class RunContextFactory {
  private readonly retryPolicies: HarnessRetryPolicies;

  constructor(
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
    private readonly journals: RunJournalRepository,
  ) {
    this.retryPolicies = HarnessRetryPolicies.fromConfig(config.retry);
  }

  start(run: NewRun): RunContext {
    const { agent, retry, roleTokens: tokens } = this.config;
    return RunContext.start({
      ...run,
      journal: this.journals.open(run.runId, Date.now() + agent.runTimeoutMs),
      timeoutMs: agent.runTimeoutMs,
      retryPolicies: this.retryPolicies,
      limits: {
        maxModelCalls: agent.maxModelCalls,
        maxToolCalls: agent.maxToolCalls,
        maxCallsPerTool: agent.maxCallsPerTool,
        maxInputTokens: agent.maxInputTokens,
        maxOutputTokens: agent.maxOutputTokens,
        maxTotalTokens: agent.maxTotalTokens,
        // Calls per role come from the retry matrix: a role may make exactly the attempts it is allowed.
        roles: {
          'intent-router': { ...tokens['intent-router'], maxModelCalls: retry.intentRouter },
          'system-chat': { ...tokens['system-chat'], maxModelCalls: 1 },
          'knowledge-answer': { ...tokens['knowledge-answer'], maxModelCalls: 1 },
          'evidence-repair': { ...tokens['evidence-repair'], maxModelCalls: retry.evidenceRepair },
          'semantic-guard': { ...tokens['semantic-guard'], maxModelCalls: retry.semanticGuard },
          'knowledge-guard': { ...tokens['knowledge-guard'], maxModelCalls: retry.knowledgeGuard },
        },
      },
    });
  }
}
