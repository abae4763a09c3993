import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { LlmProviderCheck, RedisHealthIndicator } from '@app/harness';

@ApiTags('health')
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mysql: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly llm: LlmProviderCheck,
  ) {}

  @Get()
  @HealthCheck()
  @ApiOperation({
    summary:
      'Readiness of the service database (mysql), the evidence store (redis) and the LLM provider (llm)',
  })
  check() {
    return this.health.check([
      () => this.mysql.pingCheck('mysql', { timeout: 2000 }),
      () => this.redis.check('redis'),
      () => this.llm.check('llm'),
    ]);
  }
}
