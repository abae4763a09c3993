export { ChatModule } from './chat.module';
export { chatConfig } from './chat.config';
export { ChatApplicationUseCase } from './chat-application.use-case';
export type { StartedRun } from './chat-application.use-case';
export { ChatCapacity } from './chat-capacity';
export type { BackgroundTicket } from './chat-capacity';
export { RunCompletions } from './run-completions';
export type { RunAlert, RunCompleted, RunCompletionListener } from './run-completions';
export { ChatEventStream } from './sse/chat-events';
