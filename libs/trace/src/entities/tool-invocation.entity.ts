import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { BIGINT_ID, jsonTransformer, MILLIS } from './columns';

/**
 * Durable, bounded audit of one tool call. Never SQL text, log bodies, raw responses or the
 * agent projection: those live only in the Redis canonical invocation, under its TTL.
 */
@Entity({ name: 'tool_invocation' })
@Index('idx_tool_invocation_run', ['runId'])
export class ToolInvocationEntity {
  @PrimaryGeneratedColumn({ name: 'id', ...BIGINT_ID })
  id!: string;

  @Column({ name: 'run_id', type: 'varchar', length: 64 })
  runId!: string;

  /** Null when the framework handed over an id that failed validation. */
  @Column({ name: 'tool_call_id', type: 'varchar', length: 128, nullable: true })
  toolCallId!: string | null;

  @Column({ name: 'tool_name', type: 'varchar', length: 64 })
  toolName!: string;

  @Column({ name: 'status', type: 'varchar', length: 16 })
  status!: 'READY' | 'ERROR';

  @Column({ name: 'evidence_status', type: 'varchar', length: 16 })
  evidenceStatus!: 'EVIDENCE_FOUND' | 'NO_EVIDENCE' | 'ERROR';

  @Column({ name: 'error_code', type: 'varchar', length: 64, nullable: true })
  errorCode!: string | null;

  /** Redacted, bounded argument summary (e.g. topic and lookback, never the query body). */
  @Column({ name: 'arg_summary', type: 'json', nullable: true, transformer: jsonTransformer })
  argSummary!: Record<string, string | number | boolean> | null;

  @Column({ name: 'request_bytes', type: 'int', unsigned: true, default: 0 })
  requestBytes!: number;

  @Column({ name: 'raw_bytes', type: 'int', unsigned: true, default: 0 })
  rawBytes!: number;

  @Column({ name: 'agent_result_bytes', type: 'int', unsigned: true, default: 0 })
  agentResultBytes!: number;

  @Column({ name: 'truncated', type: 'boolean', default: false })
  truncated!: boolean;

  @Column({ name: 'started_at', ...MILLIS })
  startedAt!: Date;

  @Column({ name: 'duration_ms', type: 'int', unsigned: true })
  durationMs!: number;
}
