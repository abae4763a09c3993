import { AgentReasoningAuditEntity } from './agent-reasoning-audit.entity';
import { AgentStepEntity } from './agent-step.entity';
import { ChatSessionEntity } from './chat-session.entity';
import { DiagnosisRunEntity } from './diagnosis-run.entity';
import { DiagnosisTraceEventEntity } from './diagnosis-trace-event.entity';
import { KnowledgeChunkEntity } from './knowledge-chunk.entity';
import { KnowledgeDocumentEntity } from './knowledge-document.entity';
import { NotificationDeliveryEntity } from './notification-delivery.entity';
import { ToolInvocationEntity } from './tool-invocation.entity';

export const TRACE_ENTITIES = [
  ChatSessionEntity,
  DiagnosisRunEntity,
  AgentStepEntity,
  ToolInvocationEntity,
  DiagnosisTraceEventEntity,
  AgentReasoningAuditEntity,
  KnowledgeDocumentEntity,
  KnowledgeChunkEntity,
  NotificationDeliveryEntity,
];

export {
  AgentReasoningAuditEntity,
  AgentStepEntity,
  ChatSessionEntity,
  DiagnosisRunEntity,
  DiagnosisTraceEventEntity,
  KnowledgeChunkEntity,
  KnowledgeDocumentEntity,
  NotificationDeliveryEntity,
  ToolInvocationEntity,
};
