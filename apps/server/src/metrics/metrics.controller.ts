import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { PrometheusController } from '@willsoto/nestjs-prometheus';
import type { Response } from 'express';

/**
 * Prometheus scrape endpoint (`GET /metrics`): Node's process metrics only — CPU, memory, GC, event-loop
 * lag percentiles (reset at each scrape), handles. No run data, so it needs no API key; never throttled,
 * so a scraper cannot eat the clients' rate limit.
 */
@ApiExcludeController()
@SkipThrottle()
@Controller()
export class MetricsController extends PrometheusController {
  @Get()
  override index(@Res({ passthrough: true }) response: Response) {
    return super.index(response);
  }
}
