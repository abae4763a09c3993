export { ChatModule } from './chat.module';
export { chatConfig } from './chat.config';
// The user-facing texts, for the generated code reference (docs/codes.md).
export { FAILURE_MESSAGES } from './chat-application.use-case';
export { FALLBACK_CAUSE_TEXT, FIXED_REASON_CAUSE } from './diagnosis/fallback-texts';
export type { FallbackCause } from './diagnosis/fallback-texts';
