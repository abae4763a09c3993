import { Inject, Logger, Module, OnModuleInit } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { HarnessModule, ToolCatalog } from '@app/harness';
import { queryMetricsConfig, QueryMetricsConfig } from './query-metrics.config';
import { queryMetricsTool } from './query-metrics.tool';

/** Gives the agent query_metrics when METRICS_TOOLS_CONFIG names at least one data source. */
@Module({ imports: [ConfigModule.forFeature(queryMetricsConfig), HarnessModule] })
export class QueryMetricsModule implements OnModuleInit {
  constructor(
    @Inject(queryMetricsConfig.KEY) private readonly config: QueryMetricsConfig,
    private readonly catalog: ToolCatalog,
  ) {}

  onModuleInit(): void {
    if (this.config.dataSources.length === 0) return;
    this.catalog.register(queryMetricsTool(this.config.dataSources, this.config));
    new Logger('QueryMetricsModule').log(
      `query_metrics on: data sources ${this.config.dataSources.map((source) => source.id).join(', ')}`,
    );
  }
}
