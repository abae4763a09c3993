import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { BIGINT_ID, jsonTransformer, MILLIS, NOW_MILLIS } from './columns';

export type TraceDetails = Record<string, string | number | boolean | null>;

/** Append-only timeline of a run: routing, agent, tool, evidence, semantic and release events. */
@Entity({ name: 'diagnosis_trace_event' })
@Index('idx_trace_event_run', ['runId', 'id'])
export class DiagnosisTraceEventEntity {
  @PrimaryGeneratedColumn({ name: 'id', ...BIGINT_ID })
  id!: string;

  @Column({ name: 'run_id', type: 'varchar', length: 64 })
  runId!: string;

  @Column({ name: 'phase', type: 'varchar', length: 32 })
  phase!: string;

  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType!: string;

  /** Small flat safe metadata only (codes, counts, durations); bounded by the writer. */
  @Column({ name: 'details', type: 'json', nullable: true, transformer: jsonTransformer })
  details!: TraceDetails | null;

  @Column({ name: 'created_at', ...MILLIS, default: NOW_MILLIS })
  createdAt!: Date;
}
