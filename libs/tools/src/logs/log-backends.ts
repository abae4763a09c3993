import { IsIn } from 'class-validator';
import { EnvSection, validateEnv } from '@app/config';
import {
  configureForDoctor,
  configureSelected,
  definitionOf,
  EnvSource,
  kindsOf,
} from '../backends/backend-registry';
import type { DoctorFinding } from '../doctor-finding';
import { FILE_LOG_BACKEND } from './backends/file/file-log-backend';
import { MOCK_LOG_BACKEND } from './backends/mock/mock-log-backend';
import { NO_LOG_BACKEND } from './backends/none/no-log-backend';
import type { ConfiguredLogBackend, LogBackendDefinition } from './log-backend';

/** Every log backend: a new one is its folder under logs/backends/ and one line here. */
export const LOG_BACKENDS: readonly LogBackendDefinition[] = [
  FILE_LOG_BACKEND,
  MOCK_LOG_BACKEND,
  NO_LOG_BACKEND,
];

@EnvSection('tools', 'Log backend selection')
export class LogBackendSelectionEnv {
  /** Where query_logs reads (docs/backends.md); `none` offers no log tool. */
  @IsIn(kindsOf(LOG_BACKENDS)) LOG_BACKEND: string = 'none';
}

/** The `source_kind`s of the user's own data; any other kind, or none, is stated as demo data. */
export const REAL_LOG_SOURCE_KINDS: ReadonlySet<string> = new Set(
  LOG_BACKENDS.flatMap((backend) => (backend.results?.realData ? [backend.results.sourceKind] : [])),
);

function selectedLogBackend(source: EnvSource): LogBackendDefinition {
  return definitionOf(LOG_BACKENDS, 'LOG_BACKEND', validateEnv(LogBackendSelectionEnv, source).LOG_BACKEND);
}

/** The LOG_BACKEND selected, configured; throws ConfigValidationError naming every bad key. */
export function configureLogBackend(source: EnvSource = process.env): ConfiguredLogBackend {
  return configureSelected(LOG_BACKENDS, selectedLogBackend(source), source);
}

/** `npm run doctor`'s `logs` lines: the selected backend's own check, or what to fix in its keys. */
export async function checkLogBackend(source: EnvSource = process.env): Promise<DoctorFinding[]> {
  const configured = configureForDoctor('logs', 'LOG_BACKEND', () => selectedLogBackend(source), source);
  return 'failure' in configured ? [configured.failure] : configured.backend.doctorCheck();
}
