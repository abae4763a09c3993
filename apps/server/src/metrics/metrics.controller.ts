import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { register } from 'prom-client';
import type { Response } from 'express';
import { RequireApiKey } from '@app/auth';
import { ServiceMetrics } from '@app/metrics';

/**
 * Prometheus scrape endpoint (`GET /metrics`): Node's process metrics (prom-client's default registry:
 * CPU, memory, GC, event-loop lag percentiles reset at each scrape) and the service's own (runs, model
 * and tool calls, capacity, alerts, notifications; docs/metrics.md). Run data, so it needs an API key
 * with the metrics_read role (`Authorization: Bearer`, as Prometheus' `authorization` sends it): 401
 * without one. Never throttled, so a scraper cannot eat the clients' rate limit.
 */
@ApiExcludeController()
@SkipThrottle()
@RequireApiKey('metrics_read')
// The path is PrometheusModule's (`path: '/metrics'`), which also starts Node's default metrics once.
@Controller()
export class MetricsController {
  constructor(private readonly metrics: ServiceMetrics) {}

  @Get()
  async index(@Res({ passthrough: true }) response: Response): Promise<string> {
    // Both registries write the same text format; the service's registry is per application instance.
    const [process, service] = await Promise.all([register.metrics(), this.metrics.exposition()]);
    response.header('Content-Type', register.contentType);
    return `${process}\n${service}`;
  }
}
