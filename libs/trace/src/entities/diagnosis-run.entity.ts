import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Intent } from '@app/contracts';
import { jsonTransformer, MILLIS, NOW_MILLIS } from './columns';

export const RUN_STATUSES = ['RUNNING', 'SUCCESS', 'FALLBACK', 'FAILED', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What a later turn may learn of this run: built by code, never by an LLM. */
export interface PublishedResult {
  user_query: string;
  published_conclusion: string | null;
  scope: string;
  limitations: string[];
  source_documents: { document_id: string; title: string }[];
}

/** One request of a session: status, routing, release outcome and budget totals. Source of truth for previous_turn. */
@Entity({ name: 'diagnosis_run' })
@Index('idx_diagnosis_run_session_created', ['sessionId', 'createdAt'])
@Index('idx_diagnosis_run_status_lease', ['status', 'leaseExpiresAt'])
export class DiagnosisRunEntity {
  @PrimaryColumn({ name: 'run_id', type: 'varchar', length: 64 })
  runId!: string;

  @Column({ name: 'session_id', type: 'varchar', length: 64 })
  sessionId!: string;

  @Column({ name: 'query', type: 'text' })
  query!: string;

  @Column({ name: 'intent', type: 'varchar', length: 32, nullable: true })
  intent!: Intent | null;

  @Column({ name: 'status', type: 'varchar', length: 16 })
  status!: RunStatus;

  @Column({ name: 'release_outcome', type: 'varchar', length: 16, nullable: true })
  releaseOutcome!: Exclude<RunStatus, 'RUNNING'> | null;

  @Column({ name: 'published_result', type: 'json', nullable: true, transformer: jsonTransformer })
  publishedResult!: PublishedResult | null;

  @Column({ name: 'conclusion', type: 'text', nullable: true })
  conclusion!: string | null;

  @Column({ name: 'fallback_reason', type: 'varchar', length: 64, nullable: true })
  fallbackReason!: string | null;

  @Column({ name: 'error_code', type: 'varchar', length: 64, nullable: true })
  errorCode!: string | null;

  @Column({ name: 'budget_exhausted_reason', type: 'varchar', length: 64, nullable: true })
  budgetExhaustedReason!: string | null;

  @Column({ name: 'model_calls', type: 'int', unsigned: true, default: 0 })
  modelCalls!: number;

  @Column({ name: 'tool_calls', type: 'int', unsigned: true, default: 0 })
  toolCalls!: number;

  @Column({ name: 'input_tokens', type: 'int', unsigned: true, default: 0 })
  inputTokens!: number;

  @Column({ name: 'output_tokens', type: 'int', unsigned: true, default: 0 })
  outputTokens!: number;

  @Column({ name: 'total_tokens', type: 'int', unsigned: true, default: 0 })
  totalTokens!: number;

  @Column({ name: 'created_at', ...MILLIS, default: NOW_MILLIS })
  createdAt!: Date;

  @Column({ name: 'ended_at', ...MILLIS, nullable: true })
  endedAt!: Date | null;

  @Column({ name: 'duration_ms', type: 'int', unsigned: true, nullable: true })
  durationMs!: number | null;

  /** The replica running this run, and until when (database clock) it has promised to be alive. */
  @Column({ name: 'owner_id', type: 'varchar', length: 64, nullable: true })
  ownerId!: string | null;

  @Column({ name: 'lease_expires_at', ...MILLIS, nullable: true })
  leaseExpiresAt!: Date | null;
}
