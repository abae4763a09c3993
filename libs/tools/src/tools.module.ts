import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { harnessConfig, HarnessModule } from '@app/harness';
import { toolsConfig } from './config/tools.config';
import { EvidenceTools } from './evidence-tools';
import { MysqlQueryExecutor } from './mysql/mysql-query-executor';

@Module({
  imports: [ConfigModule.forFeature(toolsConfig), ConfigModule.forFeature(harnessConfig), HarnessModule],
  providers: [MysqlQueryExecutor, EvidenceTools],
  exports: [EvidenceTools, MysqlQueryExecutor],
})
export class ToolsModule {}
