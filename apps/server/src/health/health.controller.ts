import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { LlmProviderCheck, RedisHealthIndicator } from '@app/harness';
import { DataSourceHealth, KnowledgeSearchPort } from '@app/tools';

@ApiTags('health')
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly mysql: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly llm: LlmProviderCheck,
    private readonly dataSources: DataSourceHealth,
    private readonly knowledge: KnowledgeSearchPort,
  ) {}

  @Get()
  @HealthCheck()
  @ApiOperation({
    summary:
      'Readiness of the service database (mysql), the evidence store (redis), the LLM provider (llm) and the ' +
      'knowledge index (knowledge: down while it loads after a start, "knowledge index loading", or when the load ' +
      'failed, naming the cause); the business data sources (data_sources) are reported, never down: a degraded ' +
      'one is named with its problems',
  })
  check() {
    return this.health.check([
      () => this.mysql.pingCheck('mysql', { timeout: 2000 }),
      () => this.redis.check('redis'),
      () => this.llm.check('llm'),
      () => this.knowledgeIndex('knowledge'),
      () => this.businessDataSources('data_sources'),
    ]);
  }

  @Get('live')
  @ApiOperation({
    summary:
      'Liveness: 200 while the process serves requests, whatever its dependencies or the knowledge index are doing',
  })
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Down until the embedded index has loaded (lookups answer KNOWLEDGE_INDEX_LOADING meanwhile). */
  private knowledgeIndex(key: string) {
    const readiness = this.knowledge.readiness();
    const indicator = this.indicators.check(key);
    switch (readiness.state) {
      case 'ready':
        return indicator.up(readiness);
      case 'external':
        return indicator.up({ state: readiness.state });
      case 'loading':
        return indicator.down({ ...readiness, message: 'knowledge index loading' });
      case 'failed':
        return indicator.down({
          ...readiness,
          message: `knowledge index failed to load: ${readiness.cause}`,
        });
    }
  }

  /**
   * Always up: a business database is evidence, not a dependency (query_mysql then fails under a named
   * reason and the other tools still answer). `degraded` lists the sources with problems.
   */
  private businessDataSources(key: string) {
    const sources = this.dataSources.snapshot();
    const degraded = Object.entries(sources)
      .filter(([, state]) => state.state === 'degraded')
      .map(([id]) => id);
    return this.indicators.check(key).up({ degraded, sources });
  }
}
