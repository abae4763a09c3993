import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { LlmProviderCheck, RedisHealthIndicator } from '@app/harness';
import { DataSourceHealth } from '@app/tools';

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
  ) {}

  @Get()
  @HealthCheck()
  @ApiOperation({
    summary:
      'Readiness of the service database (mysql), the evidence store (redis) and the LLM provider (llm); ' +
      'the business data sources (data_sources) are reported, never down: a degraded one is named with its problems',
  })
  check() {
    return this.health.check([
      () => this.mysql.pingCheck('mysql', { timeout: 2000 }),
      () => this.redis.check('redis'),
      () => this.llm.check('llm'),
      () => this.businessDataSources('data_sources'),
    ]);
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
