import 'reflect-metadata';
import { ConfigService } from '@nestjs/config';
import { Logger } from 'nestjs-pino';
import type { AuthConfig } from '@app/auth';
import type { ChatConfig } from '@app/chat';
import { createApp } from './bootstrap';
import { AppConfig } from './config/app.config';
import { listenBacklog, readSomaxconn } from './http/listen-backlog';
import { startupNotices } from './startup-notices';

async function main(): Promise<void> {
  const app = await createApp();
  const configs = app.get(ConfigService);
  const config = configs.getOrThrow<AppConfig>('app');
  const backlog = listenBacklog(configs.getOrThrow<ChatConfig>('chat'), config.listenBacklog);
  // Nest hands its arguments to http.Server#listen(port, host, backlog, callback); its typings omit backlog.
  await (app.listen as unknown as (port: number, host: string, backlog: number) => Promise<unknown>).call(
    app,
    config.port,
    config.host,
    backlog,
  );
  const logger = app.get(Logger);
  const notices = startupNotices({
    url: await app.getUrl(),
    apiKeyCount: configs.getOrThrow<AuthConfig>('auth').apiKeys.length,
    backlog,
    somaxconn: await readSomaxconn(),
  });
  notices.info.forEach((line) => logger.log(line, 'Startup'));
  notices.warnings.forEach((line) => logger.warn(line, 'Startup'));
}

main().catch((error: unknown) => {
  // Configuration errors name the key; anything else is reported without a stack to stay readable.
  process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
