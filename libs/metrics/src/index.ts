export { MetricsModule } from './metrics.module';
export { ServiceMetrics } from './service-metrics';
export type { CapacityLoad, ModelCallUsage } from './service-metrics';
export { RunMetrics } from './run-metrics';
export { CAPACITY_REJECTIONS, METRICS, OTHER, RUN_PHASES, UNROUTED } from './metric-catalog';
export type {
  CapacityRejection,
  MetricDefinition,
  RunEnd,
  RunEndReason,
  RunOutcome,
  RunPhase,
} from './metric-catalog';
export { renderMetricsReference, replaceMetricsReference } from './metrics-reference';
