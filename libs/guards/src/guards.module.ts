import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { harnessConfig, HarnessModule } from '@app/harness';
import { TraceModule } from '@app/trace';
import { EvidenceGuard } from './evidence-guard';
import { KnowledgeGuard } from './knowledge-guard';
import { releaseConfig } from './release.config';
import { SemanticGuard } from './semantic-guard';

@Module({
  imports: [
    ConfigModule.forFeature(harnessConfig),
    ConfigModule.forFeature(releaseConfig),
    HarnessModule,
    TraceModule,
  ],
  providers: [EvidenceGuard, SemanticGuard, KnowledgeGuard],
  exports: [EvidenceGuard, SemanticGuard, KnowledgeGuard],
})
export class GuardsModule {}
