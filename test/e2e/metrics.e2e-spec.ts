import { RunningApp, startApp } from '../support/app-under-test';

describe('GET /metrics (Prometheus)', () => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp({ THROTTLE_LIMIT: '1' });
  });

  afterAll(async () => {
    await running?.close();
  });

  it('serves process metrics, event-loop lag percentiles included, without an API key', async () => {
    const response = await fetch(`${running.baseUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const body = await response.text();
    for (const metric of [
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
    ])
      expect(body).toMatch(new RegExp(`^${metric} [0-9.e+-]+$`, 'm'));
  });

  it('is never throttled, so a scraper cannot use up the clients’ rate limit', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await fetch(`${running.baseUrl}/metrics`)).status);
    expect(statuses).toEqual([200, 200, 200]);
    expect((await fetch(`${running.baseUrl}/health`)).status).toBe(200);
  });
});
