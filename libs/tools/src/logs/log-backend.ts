import type { BackendDefinition } from '../backends/backend-registry';
import type { DoctorFinding } from '../doctor-finding';
import type { LogSourcePort } from './log-source.port';

/** What the service gives a log backend at start-up. */
export interface LogBackendDeps {
  /** The evidence record's byte limits (harness): a raw result must fit one record. */
  evidence: { maxRecordBytes: number; maxAgentResultBytes: number };
}

/** A log backend with its settings read and checked: what start-up and `npm run doctor` ask of it. */
export interface ConfiguredLogBackend {
  readonly kind: string;
  /** A fixed "now" that ends every query window (replaying an exported incident); null = the real clock. */
  readonly replayNow: Date | null;
  /** The source query_logs reads (null: no log tool), with the start-up log lines it owes the operator. */
  create(deps: LogBackendDeps): LogSourcePort | null;
  /** Its lines in `npm run doctor` (check name `logs`). */
  doctorCheck(): Promise<DoctorFinding[]>;
}

/** One LOG_BACKEND value (docs/backends.md): its folder under logs/backends/, one line in LOG_BACKENDS. */
export interface LogBackendDefinition extends BackendDefinition<ConfiguredLogBackend> {
  /**
   * The `source_kind` its results carry and whether they are the user's own data; a result of any other
   * kind is stated as demo data (fail closed). Null when it offers no log tool.
   */
  readonly results: { sourceKind: string; realData: boolean } | null;
}
