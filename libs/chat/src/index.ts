export { ChatModule } from './chat.module';
export { chatConfig } from './chat.config';
