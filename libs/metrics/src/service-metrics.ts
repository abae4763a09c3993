import { Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  ALERT_DEDUP_REASONS,
  ALERT_STATUSES,
  AlertDedupReason,
  AlertStatus,
  Intent,
  MODEL_ROLES,
  NOTIFICATION_FAILURES,
  NOTIFICATION_KINDS,
  NotificationFailure,
  NotificationKind,
} from '@app/contracts';
import {
  CAPACITY_REJECTIONS,
  CapacityRejection,
  MetricDefinition,
  METRICS,
  OTHER,
  RUN_ENDS,
  RUN_INTENT_LABELS,
  RUN_OUTCOMES,
  RUN_PHASES,
  RunEnd,
  RunPhase,
  TOKEN_KINDS,
  UNROUTED,
} from './metric-catalog';
import { RunMetrics } from './run-metrics';

/** What a successful model call used, as the Harness counts it. */
export interface ModelCallUsage {
  inputTokens: number;
  outputTokens: number;
}

/** The load of the run slots at a scrape. */
export interface CapacityLoad {
  inFlight: number;
  queued: number;
}

/** Tool results that are not errors: a READY result's evidence status. */
const TOOL_EVIDENCE_RESULTS = ['EVIDENCE_FOUND', 'NO_EVIDENCE'] as const;

/**
 * The service's own Prometheus metrics (METRICS), in a registry of their own so every application
 * instance counts for itself. Typed methods only: label values come from the contract's closed sets or
 * from sets their owner declared at start-up (tools, the Harness' failure codes); a value outside its
 * set is counted as OTHER, and the first one per metric and label is logged (without the value, which
 * may be model output such as a tool name the model made up). Small label combinations exist from the
 * start at 0, so rate() and absent-series alerts work before the first event.
 */
@Injectable()
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly logger = new Logger(ServiceMetrics.name);
  private readonly counters = new Map<string, Counter>();
  private readonly histograms = new Map<string, Histogram>();
  private readonly modelResults = new Set<string>(['OK']);
  /** Each declared tool and the results it may end with. */
  private readonly tools = new Map<string, Set<string>>();
  private readonly warned = new Set<string>();
  private capacityLoad: (() => CapacityLoad) | null = null;

  constructor() {
    for (const definition of Object.values(METRICS) as MetricDefinition[]) this.create(definition);
    this.preinitialise();
  }

  /** The exposition text of these metrics (Prometheus text format 0.0.4). */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  runStarted(): void {
    this.counter('runsStarted').inc();
  }

  /** A run's stored end: `intent` null when it ended before routing decided one. */
  runFinished(intent: Intent | null, end: RunEnd, durationMs: number): void {
    const intentLabel = intent ?? UNROUTED;
    this.counter('runsFinished').inc({ intent: intentLabel, outcome: end.outcome, reason: end.reason });
    this.histogram('runDuration').observe({ intent: intentLabel, outcome: end.outcome }, durationMs / 1000);
  }

  /** A new per-run recorder: the run's model and tool calls, and its phases when it finishes. */
  run(): RunMetrics {
    return new RunMetrics(this);
  }

  phaseObserved(phase: RunPhase, seconds: number): void {
    this.histogram('phaseDuration').observe({ phase }, seconds);
  }

  /** The Harness' failure codes: the results a model call can end with besides OK. */
  declareModelErrorCodes(codes: readonly string[]): void {
    for (const code of codes) this.modelResults.add(code);
  }

  /** One model call (attempt): `errorCode` null when it succeeded; tokens only count then. */
  modelCall(role: string, errorCode: string | null, usage: ModelCallUsage, durationMs: number): void {
    const roleLabel = this.closed('modelCalls', 'role', role, MODEL_ROLES);
    const result =
      errorCode === null ? 'OK' : this.closed('modelCalls', 'result', errorCode, this.modelResults);
    this.counter('modelCalls').inc({ role: roleLabel, result });
    if (errorCode === null) {
      this.counter('modelTokens').inc({ role: roleLabel, kind: 'prompt' }, usage.inputTokens);
      this.counter('modelTokens').inc({ role: roleLabel, kind: 'completion' }, usage.outputTokens);
    }
    this.histogram('modelCallDuration').observe({ role: roleLabel }, durationMs / 1000);
  }

  /** A tool the agent may call, with every error code it can end with; its series start at 0. */
  declareTool(name: string, errorCodes: readonly string[]): void {
    const results = new Set<string>([...TOOL_EVIDENCE_RESULTS, ...errorCodes]);
    this.tools.set(name, results);
    for (const result of results) this.counter('toolCalls').inc({ tool: name, result }, 0);
    this.histogram('toolCallDuration').zero({ tool: name });
  }

  /** One tool call: `result` is the evidence status of a READY result, or the error code. */
  toolCall(tool: string, result: string, durationMs: number): void {
    const results = this.tools.get(tool);
    const toolLabel = results ? tool : this.outside('toolCalls', 'tool');
    const resultLabel = results ? this.closed('toolCalls', 'result', result, results) : OTHER;
    this.counter('toolCalls').inc({ tool: toolLabel, result: resultLabel });
    this.histogram('toolCallDuration').observe({ tool: toolLabel }, durationMs / 1000);
  }

  /** Where the running and queued gauges read the run slots' load at each scrape. */
  observeCapacity(load: () => CapacityLoad): void {
    this.capacityLoad = load;
  }

  capacityRejected(reason: CapacityRejection): void {
    this.counter('capacityRejections').inc({ reason });
  }

  alertGroupReceived(status: AlertStatus): void {
    this.counter('alertGroupsReceived').inc({ status });
  }

  alertGroupDeduplicated(reason: AlertDedupReason): void {
    this.counter('alertGroupsDeduplicated').inc({ reason });
  }

  alertInvestigationStarted(): void {
    this.counter('alertInvestigationsStarted').inc();
  }

  alertInvestigationCapped(): void {
    this.counter('alertInvestigationsCapped').inc();
  }

  notificationDelivered(kind: NotificationKind): void {
    this.counter('notificationsDelivered').inc({ target_kind: kind });
  }

  notificationFailed(kind: NotificationKind, reason: NotificationFailure): void {
    this.counter('notificationsFailed').inc({ target_kind: kind, reason });
  }

  private create(definition: MetricDefinition): void {
    const common = {
      name: definition.name,
      help: definition.help,
      labelNames: Object.keys(definition.labels),
      registers: [this.registry],
    };
    switch (definition.type) {
      case 'counter':
        this.counters.set(definition.name, new Counter(common));
        return;
      case 'histogram':
        this.histograms.set(
          definition.name,
          new Histogram({ ...common, buckets: [...(definition.buckets ?? [])] }),
        );
        return;
      case 'gauge': {
        const read = definition.name === METRICS.capacityQueued.name ? 'queued' : 'inFlight';
        const load = () => this.capacityLoad?.()[read] ?? 0;
        new Gauge({
          ...common,
          collect() {
            this.set(load());
          },
        });
        return;
      }
    }
  }

  private preinitialise(): void {
    for (const intent of RUN_INTENT_LABELS) {
      for (const end of RUN_ENDS) this.counter('runsFinished').inc({ intent, ...end }, 0);
      for (const outcome of RUN_OUTCOMES) this.histogram('runDuration').zero({ intent, outcome });
    }
    this.counter('runsStarted').inc(0);
    for (const phase of RUN_PHASES) this.histogram('phaseDuration').zero({ phase });
    for (const role of MODEL_ROLES) {
      this.counter('modelCalls').inc({ role, result: 'OK' }, 0);
      for (const kind of TOKEN_KINDS) this.counter('modelTokens').inc({ role, kind }, 0);
      this.histogram('modelCallDuration').zero({ role });
    }
    for (const reason of CAPACITY_REJECTIONS) this.counter('capacityRejections').inc({ reason }, 0);
    for (const status of ALERT_STATUSES) this.counter('alertGroupsReceived').inc({ status }, 0);
    for (const reason of ALERT_DEDUP_REASONS) this.counter('alertGroupsDeduplicated').inc({ reason }, 0);
    this.counter('alertInvestigationsStarted').inc(0);
    this.counter('alertInvestigationsCapped').inc(0);
    for (const kind of NOTIFICATION_KINDS) {
      this.counter('notificationsDelivered').inc({ target_kind: kind }, 0);
      for (const reason of NOTIFICATION_FAILURES)
        this.counter('notificationsFailed').inc({ target_kind: kind, reason }, 0);
    }
  }

  private counter(key: keyof typeof METRICS): Counter {
    return this.counters.get(METRICS[key].name)!;
  }

  private histogram(key: keyof typeof METRICS): Histogram {
    return this.histograms.get(METRICS[key].name)!;
  }

  /** `value` when it is in `allowed`, otherwise OTHER (logged once per metric and label). */
  private closed(key: keyof typeof METRICS, label: string, value: string, allowed: Iterable<string>): string {
    const set = allowed instanceof Set ? (allowed as Set<string>) : new Set(allowed);
    return set.has(value) ? value : this.outside(key, label);
  }

  private outside(key: keyof typeof METRICS, label: string): string {
    const name = `${METRICS[key].name}/${label}`;
    if (!this.warned.has(name)) {
      this.warned.add(name);
      this.logger.warn(
        `${METRICS[key].name}: a ${label} outside its declared set was counted as ${OTHER} (the value is not logged)`,
      );
    }
    return OTHER;
  }
}
