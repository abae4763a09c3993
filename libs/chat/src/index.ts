export { ChatModule } from './chat.module';
export { chatConfig } from './chat.config';
export type { ChatConfig } from './chat.config';
