import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { HarnessModule } from '@app/harness';
import { toolsConfig } from './config/tools.config';

@Module({
  imports: [ConfigModule.forFeature(toolsConfig), HarnessModule],
})
export class ToolsModule {}
