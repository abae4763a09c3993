import 'reflect-metadata';
import { ConfigService } from '@nestjs/config';
import { Logger } from 'nestjs-pino';
import type { AuthConfig } from '@app/auth';
import { createApp } from './bootstrap';
import { AppConfig } from './config/app.config';
import { startupNotices } from './startup-notices';

async function main(): Promise<void> {
  const app = await createApp();
  const config = app.get(ConfigService).getOrThrow<AppConfig>('app');
  await app.listen(config.port, config.host);
  const logger = app.get(Logger);
  const notices = startupNotices({
    url: await app.getUrl(),
    apiKeyCount: app.get(ConfigService).getOrThrow<AuthConfig>('auth').apiKeys.length,
  });
  notices.info.forEach((line) => logger.log(line, 'Startup'));
  notices.warnings.forEach((line) => logger.warn(line, 'Startup'));
}

main().catch((error: unknown) => {
  // Configuration errors name the key; anything else is reported without a stack to stay readable.
  process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
