import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { BIGINT_ID, MILLIS, NOW_MILLIS } from './columns';

/** Where the audited text came from. UNAVAILABLE is the explicit marker: nothing is ever fabricated. */
export const CONTENT_SOURCES = ['PROVIDER_REASONING', 'ASSISTANT_TEXT_ONLY', 'UNAVAILABLE'] as const;
export type ContentSource = (typeof CONTENT_SOURCES)[number];

/** Restricted audit of one model step. Not evidence; readable only through the auditor API. */
@Entity({ name: 'agent_reasoning_audit' })
@Index('uq_reasoning_audit_run_step', ['runId', 'stepIndex'], { unique: true })
export class AgentReasoningAuditEntity {
  @PrimaryGeneratedColumn({ name: 'id', ...BIGINT_ID })
  id!: string;

  @Column({ name: 'run_id', type: 'varchar', length: 64 })
  runId!: string;

  @Column({ name: 'step_index', type: 'int', unsigned: true })
  stepIndex!: number;

  @Column({ name: 'role', type: 'varchar', length: 32 })
  role!: string;

  @Column({ name: 'content_source', type: 'varchar', length: 32 })
  contentSource!: ContentSource;

  /** The audit key that sealed the two text columns; null only in demo mode (stored as is). */
  @Column({ name: 'encryption_key_id', type: 'varchar', length: 32, nullable: true })
  encryptionKeyId!: string | null;

  /** Provider reasoning (e.g. DeepSeek reasoning_content), only when the provider returned it. Sealed at rest. */
  @Column({ name: 'reasoning_content', type: 'longtext', nullable: true })
  reasoningContent!: string | null;

  /** Visible assistant output plus the tool-call plan of this step; never tool results. Sealed at rest. */
  @Column({ name: 'assistant_text', type: 'longtext', nullable: true })
  assistantText!: string | null;

  @Column({ name: 'created_at', ...MILLIS, default: NOW_MILLIS })
  createdAt!: Date;
}
