import { Logger } from '@nestjs/common';
import { FAILURE_CODES, FALLBACK_TYPES, INTENTS, MODEL_ROLES, NOTIFICATION_KINDS } from '@app/contracts';
import { MetricDefinition, METRICS, RUN_ENDS, RUN_PHASES } from './metric-catalog';
import { ServiceMetrics } from './service-metrics';

type Labels = Record<string, string | number>;

/** The value of one series (for a histogram: its _count, _sum or a bucket by `le`). */
async function valueOf(
  metrics: ServiceMetrics,
  name: string,
  labels: Labels = {},
): Promise<number | undefined> {
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    for (const sample of metric.values) {
      const sampleName = (sample as { metricName?: string }).metricName ?? metric.name;
      if (sampleName !== name) continue;
      const have = sample.labels as Labels;
      if (Object.keys(labels).length !== Object.keys(have).length) continue;
      if (Object.entries(labels).every(([key, value]) => String(have[key]) === String(value)))
        return sample.value;
    }
  }
  return undefined;
}

async function seriesOf(metrics: ServiceMetrics, name: string): Promise<Labels[]> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((candidate) => candidate.name === name);
  return (metric?.values ?? []).map((sample) => sample.labels as Labels);
}

describe('METRICS (the catalog)', () => {
  const definitions = Object.values(METRICS) as MetricDefinition[];

  it.each(definitions.map((definition) => [definition.name, definition]))(
    '%s follows the naming conventions: prefix, unit, _total for counters',
    (name, definition) => {
      expect(name).toMatch(/^superbiz_[a-z][a-z0-9_]*[a-z0-9]$/);
      if (definition.type === 'counter') expect(name).toMatch(/_total$/);
      else expect(name).not.toMatch(/_total$/);
      if (definition.type === 'histogram') {
        expect(name).toMatch(/_seconds$/);
        expect([...definition.buckets!]).toEqual([...definition.buckets!].sort((a, b) => a - b));
      }
      for (const label of Object.keys(definition.labels)) expect(label).toMatch(/^[a-z][a-z_]*$/);
    },
  );

  it('has one name per metric', () => {
    expect(new Set(definitions.map((definition) => definition.name)).size).toBe(definitions.length);
  });

  it('lists every run end once: SUCCESS, each fallback type, each failure code, CANCELLED', () => {
    expect(RUN_ENDS.map((end) => `${end.outcome}/${end.reason}`)).toEqual([
      'SUCCESS/NONE',
      ...FALLBACK_TYPES.map((type) => `FALLBACK/${type}`),
      ...FAILURE_CODES.map((code) => `FAILED/${code}`),
      'CANCELLED/CLIENT_DISCONNECTED',
      'CANCELLED/SERVICE_STOPPING',
    ]);
    expect(METRICS.runsFinished.labels.reason).toEqual([...new Set(RUN_ENDS.map((end) => end.reason))]);
  });
});

describe('ServiceMetrics', () => {
  let metrics: ServiceMetrics;
  let warnings: string[];
  beforeEach(() => {
    metrics = new ServiceMetrics();
    warnings = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });
  });
  afterEach(() => jest.restoreAllMocks());

  it('registers every metric of the catalog with its type, in a registry of its own', async () => {
    const registered = await metrics.registry.getMetricsAsJSON();
    expect(registered.map((metric) => [metric.name, metric.type]).sort()).toEqual(
      (Object.values(METRICS) as MetricDefinition[])
        .map((definition) => [definition.name, definition.type])
        .sort(),
    );
    // Two instances in one process (two apps in one test file) do not collide.
    expect(() => new ServiceMetrics()).not.toThrow();
  });

  it('starts every run-end series at 0: each intent (and UNROUTED) with each possible end, no impossible pair', async () => {
    const series = await seriesOf(metrics, METRICS.runsFinished.name);
    expect(series).toHaveLength((INTENTS.length + 1) * RUN_ENDS.length);
    expect(series.some((labels) => labels.outcome === 'SUCCESS' && labels.reason !== 'NONE')).toBe(false);
    expect(
      await valueOf(metrics, METRICS.runsFinished.name, {
        intent: 'UNROUTED',
        outcome: 'FAILED',
        reason: 'ROUTING_UNAVAILABLE',
      }),
    ).toBe(0);
  });

  it('counts a run start and end in exactly its series, with its duration in seconds', async () => {
    metrics.runStarted();
    metrics.runFinished('DIAGNOSIS', { outcome: 'FALLBACK', reason: 'SEMANTIC_UNSUPPORTED' }, 1500);
    metrics.runFinished(null, { outcome: 'FAILED', reason: 'ROUTING_UNAVAILABLE' }, 200);
    expect(await valueOf(metrics, METRICS.runsStarted.name)).toBe(1);
    const finished = METRICS.runsFinished.name;
    expect(
      await valueOf(metrics, finished, {
        intent: 'DIAGNOSIS',
        outcome: 'FALLBACK',
        reason: 'SEMANTIC_UNSUPPORTED',
      }),
    ).toBe(1);
    expect(
      await valueOf(metrics, finished, {
        intent: 'UNROUTED',
        outcome: 'FAILED',
        reason: 'ROUTING_UNAVAILABLE',
      }),
    ).toBe(1);
    expect(
      await valueOf(metrics, finished, { intent: 'DIAGNOSIS', outcome: 'SUCCESS', reason: 'NONE' }),
    ).toBe(0);
    const duration = METRICS.runDuration.name;
    expect(await valueOf(metrics, `${duration}_sum`, { intent: 'DIAGNOSIS', outcome: 'FALLBACK' })).toBe(1.5);
    expect(
      await valueOf(metrics, `${duration}_bucket`, { intent: 'DIAGNOSIS', outcome: 'FALLBACK', le: 1 }),
    ).toBe(0);
    expect(
      await valueOf(metrics, `${duration}_bucket`, { intent: 'DIAGNOSIS', outcome: 'FALLBACK', le: 2 }),
    ).toBe(1);
  });

  it('counts model calls by role and result, tokens only for successful ones', async () => {
    metrics.declareModelErrorCodes(['MODEL_TIMEOUT']);
    metrics.modelCall('diagnosis-agent', null, { inputTokens: 120, outputTokens: 30 }, 2000);
    metrics.modelCall('diagnosis-agent', 'MODEL_TIMEOUT', { inputTokens: 0, outputTokens: 0 }, 500);
    const calls = METRICS.modelCalls.name;
    expect(await valueOf(metrics, calls, { role: 'diagnosis-agent', result: 'OK' })).toBe(1);
    expect(await valueOf(metrics, calls, { role: 'diagnosis-agent', result: 'MODEL_TIMEOUT' })).toBe(1);
    const tokens = METRICS.modelTokens.name;
    expect(await valueOf(metrics, tokens, { role: 'diagnosis-agent', kind: 'prompt' })).toBe(120);
    expect(await valueOf(metrics, tokens, { role: 'diagnosis-agent', kind: 'completion' })).toBe(30);
    expect(
      await valueOf(metrics, `${METRICS.modelCallDuration.name}_count`, { role: 'diagnosis-agent' }),
    ).toBe(2);
    expect(warnings).toEqual([]);
  });

  it('starts every role at 0 (OK calls, both token kinds)', async () => {
    for (const role of MODEL_ROLES) {
      expect(await valueOf(metrics, METRICS.modelCalls.name, { role, result: 'OK' })).toBe(0);
      expect(await valueOf(metrics, METRICS.modelTokens.name, { role, kind: 'prompt' })).toBe(0);
    }
  });

  it('counts a role or an error code outside its set as OTHER, and warns once per metric and label without the value', async () => {
    metrics.modelCall('made-up-role', null, { inputTokens: 1, outputTokens: 1 }, 1);
    metrics.modelCall('intent-router', 'UNDECLARED_CODE', { inputTokens: 0, outputTokens: 0 }, 1);
    metrics.modelCall('intent-router', 'ANOTHER_UNDECLARED', { inputTokens: 0, outputTokens: 0 }, 1);
    const calls = METRICS.modelCalls.name;
    expect(await valueOf(metrics, calls, { role: 'OTHER', result: 'OK' })).toBe(1);
    expect(await valueOf(metrics, calls, { role: 'intent-router', result: 'OTHER' })).toBe(2);
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).not.toMatch(/made-up-role|UNDECLARED/);
    expect(warnings.join('\n')).toMatch(/superbiz_model_calls_total: a result outside its declared set/);
  });

  it('starts a declared tool at 0 for each of its results; an undeclared tool or code counts as OTHER', async () => {
    metrics.declareTool('query_logs', ['TOOL_TIMEOUT', 'LOG_DIRECTORY_UNREADABLE']);
    const calls = METRICS.toolCalls.name;
    expect(await seriesOf(metrics, calls)).toEqual(
      ['EVIDENCE_FOUND', 'NO_EVIDENCE', 'TOOL_TIMEOUT', 'LOG_DIRECTORY_UNREADABLE'].map((result) => ({
        tool: 'query_logs',
        result,
      })),
    );
    metrics.toolCall('query_logs', 'TOOL_TIMEOUT', 5000);
    metrics.toolCall('query_logs', 'EVIDENCE_FOUND', 40);
    metrics.toolCall('query_logs', 'SOMETHING_NEW', 1);
    // A tool the model made up: its name is model output, never a label value.
    metrics.toolCall('drop_tables_now', 'UNKNOWN_TOOL', 1);
    expect(await valueOf(metrics, calls, { tool: 'query_logs', result: 'TOOL_TIMEOUT' })).toBe(1);
    expect(await valueOf(metrics, calls, { tool: 'query_logs', result: 'EVIDENCE_FOUND' })).toBe(1);
    expect(await valueOf(metrics, calls, { tool: 'query_logs', result: 'OTHER' })).toBe(1);
    expect(await valueOf(metrics, calls, { tool: 'OTHER', result: 'OTHER' })).toBe(1);
    expect((await seriesOf(metrics, calls)).some((labels) => labels.tool === 'drop_tables_now')).toBe(false);
    expect(
      await valueOf(metrics, `${METRICS.toolCallDuration.name}_sum`, { tool: 'query_logs' }),
    ).toBeCloseTo(5.041);
  });

  it('reads the running and queued gauges from the observed capacity at each scrape', async () => {
    expect(await valueOf(metrics, METRICS.capacityRunning.name)).toBe(0);
    let load = { inFlight: 3, queued: 2 };
    metrics.observeCapacity(() => load);
    expect(await valueOf(metrics, METRICS.capacityRunning.name)).toBe(3);
    expect(await valueOf(metrics, METRICS.capacityQueued.name)).toBe(2);
    load = { inFlight: 1, queued: 0 };
    expect(await valueOf(metrics, METRICS.capacityQueued.name)).toBe(0);
    metrics.capacityRejected('KEY_SHARE_FULL');
    expect(await valueOf(metrics, METRICS.capacityRejections.name, { reason: 'KEY_SHARE_FULL' })).toBe(1);
    expect(await valueOf(metrics, METRICS.capacityRejections.name, { reason: 'AT_CAPACITY' })).toBe(0);
  });

  it('has the alert and notification series at 0 before those features count', async () => {
    expect(await valueOf(metrics, METRICS.alertGroupsReceived.name, { status: 'firing' })).toBe(0);
    expect(
      await valueOf(metrics, METRICS.alertGroupsDeduplicated.name, { reason: 'DUPLICATE_WITHIN_WINDOW' }),
    ).toBe(0);
    expect(await valueOf(metrics, METRICS.alertInvestigationsStarted.name)).toBe(0);
    expect(await valueOf(metrics, METRICS.alertInvestigationsCapped.name)).toBe(0);
    expect(await seriesOf(metrics, METRICS.notificationsDelivered.name)).toHaveLength(
      NOTIFICATION_KINDS.length,
    );
    metrics.alertGroupReceived('firing');
    metrics.alertGroupDeduplicated('RUN_IN_PROGRESS');
    metrics.alertInvestigationStarted();
    metrics.alertInvestigationCapped();
    metrics.notificationDelivered('slack');
    metrics.notificationFailed('dingtalk', 'VENDOR_ERROR');
    expect(await valueOf(metrics, METRICS.alertGroupsReceived.name, { status: 'firing' })).toBe(1);
    expect(await valueOf(metrics, METRICS.alertGroupsDeduplicated.name, { reason: 'RUN_IN_PROGRESS' })).toBe(
      1,
    );
    expect(await valueOf(metrics, METRICS.alertInvestigationsStarted.name)).toBe(1);
    expect(await valueOf(metrics, METRICS.alertInvestigationsCapped.name)).toBe(1);
    expect(await valueOf(metrics, METRICS.notificationsDelivered.name, { target_kind: 'slack' })).toBe(1);
    expect(
      await valueOf(metrics, METRICS.notificationsFailed.name, {
        target_kind: 'dingtalk',
        reason: 'VENDOR_ERROR',
      }),
    ).toBe(1);
  });

  it('writes the Prometheus text format with HELP and TYPE for each metric', async () => {
    const text = await metrics.exposition();
    for (const definition of Object.values(METRICS) as MetricDefinition[]) {
      expect(text).toContain(`# TYPE ${definition.name} ${definition.type}\n`);
      expect(text).toContain(`# HELP ${definition.name} `);
    }
  });
});

describe('RunMetrics (one run)', () => {
  it('observes each phase once, from the start of its first call to its last event', async () => {
    const metrics = new ServiceMetrics();
    const run = metrics.run();
    run.event('ROUTING', 1000, 400); // a model step of 400 ms that ended at 1000
    run.event('ROUTING', 1010);
    run.event('AGENT', 1100);
    run.event('AGENT', 3100, 1500);
    run.finish();
    run.finish();
    const name = METRICS.phaseDuration.name;
    expect(await valueOf(metrics, `${name}_sum`, { phase: 'ROUTING' })).toBeCloseTo(0.41);
    expect(await valueOf(metrics, `${name}_sum`, { phase: 'AGENT' })).toBeCloseTo(2);
    expect(await valueOf(metrics, `${name}_count`, { phase: 'AGENT' })).toBe(1);
    // A phase the run never reached is not observed, but its series exists.
    expect(await valueOf(metrics, `${name}_count`, { phase: 'SEMANTIC' })).toBe(0);
    expect(RUN_PHASES).toContain('SEMANTIC');
  });
});
