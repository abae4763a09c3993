import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ToolsModule } from '@app/tools';

/** `seed-knowledge` needs the documents service and nothing that serves HTTP, schedules or purges. */
@Module({ imports: [ConfigModule.forRoot({ isGlobal: true, cache: true }), ToolsModule] })
export class SeedKnowledgeCliModule {}
