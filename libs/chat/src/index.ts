export { ChatModule } from './chat.module';
export { chatConfig } from './chat.config';
// The user-facing texts, for the generated code reference (docs/codes.md).
export { FAILURE_MESSAGES } from './chat-application.use-case';
export { FALLBACK_CAUSE_TEXT, FIXED_REASON_CAUSE } from './diagnosis/fallback-texts';
export type { FallbackCause } from './diagnosis/fallback-texts';
export { ChatApplicationUseCase } from './chat-application.use-case';
export type { StartedRun } from './chat-application.use-case';
export { ChatCapacity } from './chat-capacity';
// For the global validation pipe's spec, which checks its fast path against class-validator.
export { ChatRequestDto } from './chat-request.dto';
export { IngressBurst } from './ingress-burst';
export type { BackgroundTicket } from './chat-capacity';
export { RunCompletions } from './run-completions';
export type { RunAlert, RunCompleted, RunCompletionListener } from './run-completions';
export { ChatEventStream } from './sse/chat-events';
export type { ChatConfig } from './chat.config';
