import { chatConfig } from '@app/chat';
import { harnessConfig, llmConfig, redisConfig } from '@app/harness';
import { toolsConfig } from '@app/tools';
import { databaseConfig, traceConfig } from '@app/trace';
import { appConfig } from './app.config';

/** Every config slice of every lib. Each lib registers its own; this list only lets start-up check them all first. */
export const CONFIG_NAMESPACES = [
  appConfig,
  databaseConfig,
  redisConfig,
  llmConfig,
  harnessConfig,
  toolsConfig,
  chatConfig,
  traceConfig,
];

/** Throws ConfigValidationError naming each bad key before any module, socket or pool is created. */
export function validateConfiguration(): void {
  for (const load of CONFIG_NAMESPACES) {
    load();
  }
}
