import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { HARNESS_REDIS, HarnessRedis } from './redis.provider';

@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(HARNESS_REDIS) private readonly redis: HarnessRedis,
    private readonly health: HealthIndicatorService,
  ) {}

  async check(key = 'redis') {
    const indicator = this.health.check(key);
    try {
      await this.redis.ping();
      return indicator.up();
    } catch {
      // The connection state is safe to show; driver messages may carry addresses.
      return indicator.down({ message: `Redis is not reachable (connection ${this.redis.status})` });
    }
  }
}
