import { Global, Module } from '@nestjs/common';
import { ServiceMetrics } from './service-metrics';

/**
 * The service's own metrics: one ServiceMetrics per application, shared by every lib that imports this.
 * Global as well, so the scrape controller that PrometheusModule declares in its own scope reaches it.
 */
@Global()
@Module({
  providers: [ServiceMetrics],
  exports: [ServiceMetrics],
})
export class MetricsModule {}
