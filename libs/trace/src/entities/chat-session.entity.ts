import { Column, Entity, PrimaryColumn } from 'typeorm';
import { MILLIS, NOW_MILLIS } from './columns';

/** Run directory of one conversation. Holds no chat history: previous turns come from diagnosis_run. */
@Entity({ name: 'chat_session' })
export class ChatSessionEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 64 })
  sessionId!: string;

  @Column({ name: 'created_at', ...MILLIS, default: NOW_MILLIS })
  createdAt!: Date;

  @Column({ name: 'updated_at', ...MILLIS, default: NOW_MILLIS })
  updatedAt!: Date;
}
