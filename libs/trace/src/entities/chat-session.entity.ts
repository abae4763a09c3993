import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonTransformer, MILLIS, NOW_MILLIS } from './columns';
import type { RunStatus } from './diagnosis-run.entity';

export const SESSION_ORIGINS = ['CHAT', 'ALERT'] as const;
export type SessionOrigin = (typeof SESSION_ORIGINS)[number];

/**
 * Run directory of one conversation. Holds no chat history: previous turns come from diagnosis_run. The
 * list columns (run_count, last_*) are written by each run's terminal write, so the session list reads
 * a page in index order (docs/architecture.md, "Session list").
 */
@Entity({ name: 'chat_session' })
export class ChatSessionEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 64 })
  sessionId!: string;

  /** SHA-256 (hex) of the API key that created the session; null for sessions older than this column. */
  @Column({ name: 'owner_key_digest', type: 'char', length: 64, nullable: true })
  ownerKeyDigest!: string | null;

  @Column({ name: 'created_at', ...MILLIS, default: NOW_MILLIS })
  createdAt!: Date;

  /** Last activity: a run started or ended. The session list's order, with session_id breaking ties. */
  @Column({ name: 'updated_at', ...MILLIS, default: NOW_MILLIS })
  updatedAt!: Date;

  /** Runs of the session that have ended. */
  @Column({ name: 'run_count', type: 'int', unsigned: true, default: 0 })
  runCount!: number;

  /** Start of the newest ended run. */
  @Column({ name: 'last_run_at', ...MILLIS, nullable: true })
  lastRunAt!: Date | null;

  /** Terminal status of the newest ended run. */
  @Column({ name: 'last_outcome', type: 'varchar', length: 16, nullable: true })
  lastOutcome!: Exclude<RunStatus, 'RUNNING'> | null;

  /** Query of the newest ended run, cut to 200 characters. */
  @Column({ name: 'last_query', type: 'varchar', length: 200, nullable: true })
  lastQuery!: string | null;

  /** What started the session: a chat request, or an alert group (docs/alerts.md). */
  @Column({ name: 'origin', type: 'varchar', length: 16, default: 'CHAT' })
  origin!: SessionOrigin;

  /** An alert group's common labels (untrusted text, shown as data); null for chat sessions. */
  @Column({ name: 'alert_labels', type: 'json', nullable: true, transformer: jsonTransformer })
  alertLabels!: Record<string, string> | null;
}
