import 'reflect-metadata';
import { ConfigService } from '@nestjs/config';
import { createApp } from './bootstrap';
import { AppConfig } from './config/app.config';

async function main(): Promise<void> {
  const app = await createApp();
  const config = app.get(ConfigService).getOrThrow<AppConfig>('app');
  await app.listen(config.port, config.host);
}

main().catch((error: unknown) => {
  // Configuration errors name the key; anything else is reported without a stack to stay readable.
  process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
