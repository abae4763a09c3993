import { authConfig } from '@app/auth';
import { chatConfig } from '@app/chat';
import { ConfigValidationError } from '@app/config';
import { harnessConfig, llmConfig, redisConfig } from '@app/harness';
import { EVIDENCE_TOOL_CONFIGS, toolsConfig } from '@app/tools';
import { databaseConfig, traceConfig } from '@app/trace';
import { listenBacklog } from '../http/listen-backlog';
import { appConfig } from './app.config';

/** Every config slice of every lib. Each lib registers its own; this list only lets start-up check them all first. */
export const CONFIG_NAMESPACES = [
  appConfig,
  authConfig,
  databaseConfig,
  redisConfig,
  llmConfig,
  harnessConfig,
  toolsConfig,
  ...EVIDENCE_TOOL_CONFIGS,
  chatConfig,
  traceConfig,
];

/** Throws ConfigValidationError naming each bad key before any module, socket or pool is created. */
export function validateConfiguration(): void {
  for (const load of CONFIG_NAMESPACES) {
    load();
  }
  // Across libs: a run may only be declared abandoned once it can no longer be running.
  const harness = harnessConfig();
  if (
    traceConfig().abandonAfterMinutes * 60_000 <=
    harness.agent.runTimeoutMs + harness.semantic.totalTimeoutMs
  ) {
    throw new ConfigValidationError([
      'RUN_ABANDON_AFTER_MINUTES must exceed HARNESS_RUN_TIMEOUT_MS + HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS',
    ]);
  }
  listenBacklog(chatConfig(), appConfig().listenBacklog);
}
