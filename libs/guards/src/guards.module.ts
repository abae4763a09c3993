import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { harnessConfig, HarnessModule } from '@app/harness';
import { TraceModule } from '@app/trace';
import { EvidenceGuard } from './evidence-guard';
import { SemanticGuard } from './semantic-guard';

@Module({
  imports: [ConfigModule.forFeature(harnessConfig), HarnessModule, TraceModule],
  providers: [EvidenceGuard, SemanticGuard],
  exports: [EvidenceGuard, SemanticGuard],
})
export class GuardsModule {}
