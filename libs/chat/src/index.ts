export { ChatModule } from './chat.module';
export { chatConfig } from './chat.config';
export type { ChatConfig } from './chat.config';
export { ChatApplicationUseCase } from './chat-application.use-case';
export type { ChatRequest } from './chat-application.use-case';
export { ChatEventStream, CONTENT_TYPES, FAILURE_CODES, STATUS_CODES } from './sse/chat-events';
export type {
  ChatEvent,
  ContentType,
  DoneOutcome,
  FailureCode,
  RunObserver,
  StatusCode,
} from './sse/chat-events';
export { DiagnosisPipeline } from './diagnosis/diagnosis-pipeline';
export type { DiagnosisOutcome } from './diagnosis/diagnosis-pipeline';
