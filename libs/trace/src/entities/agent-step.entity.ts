import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { BIGINT_ID, MILLIS } from './columns';

/** Bounded metadata of one model call. Text of any kind lives only in agent_reasoning_audit. */
@Entity({ name: 'agent_step' })
@Index('uq_agent_step_run_step', ['runId', 'stepIndex'], { unique: true })
export class AgentStepEntity {
  @PrimaryGeneratedColumn({ name: 'id', ...BIGINT_ID })
  id!: string;

  @Column({ name: 'run_id', type: 'varchar', length: 64 })
  runId!: string;

  @Column({ name: 'step_index', type: 'int', unsigned: true })
  stepIndex!: number;

  /** The prompt role that made the call: diagnosis-agent, semantic-guard, ... */
  @Column({ name: 'role', type: 'varchar', length: 32 })
  role!: string;

  @Column({ name: 'attempt', type: 'tinyint', unsigned: true, default: 1 })
  attempt!: number;

  @Column({ name: 'status', type: 'varchar', length: 16 })
  status!: 'OK' | 'ERROR';

  @Column({ name: 'error_code', type: 'varchar', length: 64, nullable: true })
  errorCode!: string | null;

  @Column({ name: 'finish_reason', type: 'varchar', length: 32, nullable: true })
  finishReason!: string | null;

  @Column({ name: 'tool_call_count', type: 'smallint', unsigned: true, default: 0 })
  toolCallCount!: number;

  @Column({ name: 'input_tokens', type: 'int', unsigned: true, default: 0 })
  inputTokens!: number;

  @Column({ name: 'output_tokens', type: 'int', unsigned: true, default: 0 })
  outputTokens!: number;

  @Column({ name: 'total_tokens', type: 'int', unsigned: true, default: 0 })
  totalTokens!: number;

  @Column({ name: 'started_at', ...MILLIS })
  startedAt!: Date;

  @Column({ name: 'duration_ms', type: 'int', unsigned: true })
  durationMs!: number;
}
