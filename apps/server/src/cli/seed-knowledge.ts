import 'reflect-metadata';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentsService } from '@app/tools';
import { KnowledgeRepository } from '@app/trace';
import { SeedKnowledgeCliModule } from './seed-knowledge-cli.module';
import { validateConfiguration } from '../config/configuration';

/** `node dist/apps/server/src/cli/seed-knowledge.js DIR`: ingests the runbooks of DIR that are not in the knowledge base yet (by title). */
async function main(directory: string | undefined): Promise<void> {
  if (!directory) throw new Error('usage: seed-knowledge DIR');
  validateConfiguration();
  const app = await NestFactory.createApplicationContext(SeedKnowledgeCliModule, { logger: false });
  try {
    const documents = app.get(DocumentsService);
    const knowledge = app.get(KnowledgeRepository);
    for (const name of (await readdir(directory))
      .filter((file) => /\.(md|markdown|txt)$/i.test(file))
      .sort()) {
      const content = await readFile(join(directory, name));
      const title = /^#\s+(.+)$/m.exec(content.toString('utf8'))?.[1]?.trim() ?? name;
      if (await knowledge.findByTitle(title)) continue;
      const documentId = `demo-${name.replace(/\.[^.]+$/, '').replace(/[^A-Za-z0-9_-]/g, '-')}`;
      try {
        await documents.ingest(
          { originalname: name, buffer: content, size: content.length },
          { documentId, title, category: 'runbook' },
        );
      } catch (error) {
        // The same bytes already stored under another title: nothing to seed, and the message names it.
        if (!(error instanceof ConflictException)) throw error;
        process.stdout.write(`skipped ${name}: ${error.message}\n`);
        continue;
      }
      process.stdout.write(`ingested ${name} as "${title}"\n`);
    }
  } finally {
    await app.close();
  }
}

main(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`seed-knowledge: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
