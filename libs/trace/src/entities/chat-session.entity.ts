import { Column, Entity, PrimaryColumn } from 'typeorm';
import { MILLIS, NOW_MILLIS } from './columns';

/** Run directory of one conversation. Holds no chat history: previous turns come from diagnosis_run. */
@Entity({ name: 'chat_session' })
export class ChatSessionEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 64 })
  sessionId!: string;

  /** SHA-256 (hex) of the API key that created the session; null for sessions older than this column. */
  @Column({ name: 'owner_key_digest', type: 'char', length: 64, nullable: true })
  ownerKeyDigest!: string | null;

  @Column({ name: 'created_at', ...MILLIS, default: NOW_MILLIS })
  createdAt!: Date;

  @Column({ name: 'updated_at', ...MILLIS, default: NOW_MILLIS })
  updatedAt!: Date;
}
