import { InitialSchema1764680000000 } from './1764680000000-InitialSchema';
import { ReasoningAuditKeyId1764700000000 } from './1764700000000-ReasoningAuditKeyId';
import { SessionOwnerKey1796271937709 } from './1796271937709-SessionOwnerKey';
import { RunOwnerLease1796276817944 } from './1796276817944-RunOwnerLease';
import { SessionListSummary1796400000000 } from './1796400000000-SessionListSummary';
import { KnowledgeIndexVersion1796420000000 } from './1796420000000-KnowledgeIndexVersion';
import { KnowledgeDocumentContentHash1796440000000 } from './1796440000000-KnowledgeDocumentContentHash';
import { AlertIngest1797000000000 } from './1797000000000-AlertIngest';
import { NotificationDelivery1797100000000 } from './1797100000000-NotificationDelivery';
import { KnowledgeDocumentListOrder1797200000000 } from './1797200000000-KnowledgeDocumentListOrder';
import { NotificationResume1797300000000 } from './1797300000000-NotificationResume';

/** Every migration, oldest first. The app runs pending ones at start; `npm run migration:run` does the same. */
export const MIGRATIONS = [
  InitialSchema1764680000000,
  ReasoningAuditKeyId1764700000000,
  SessionOwnerKey1796271937709,
  RunOwnerLease1796276817944,
  SessionListSummary1796400000000,
  KnowledgeIndexVersion1796420000000,
  KnowledgeDocumentContentHash1796440000000,
  AlertIngest1797000000000,
  NotificationDelivery1797100000000,
  KnowledgeDocumentListOrder1797200000000,
  NotificationResume1797300000000,
];
