import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { describePurge, RetentionService } from '@app/trace';
import { PurgeCliModule } from './purge-cli.module';
import { validateConfiguration } from '../config/configuration';

/** `npm run purge`: applies AUDIT_RETENTION_DAYS and TRACE_RETENTION_DAYS once (the service also does it hourly). */
async function main(): Promise<void> {
  validateConfiguration();
  const app = await NestFactory.createApplicationContext(PurgeCliModule, { logger: false });
  try {
    const result = await app.get(RetentionService).purge();
    process.stdout.write(`${describePurge(result)}\n`);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`purge failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
