import { randomBytes } from 'node:crypto';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { readTrace, waitForRunEnd } from '../support/alerts';
import { AlertmanagerServer } from '../support/alertmanager';
import { useStubbedApp } from '../support/app-under-test';
import { TEST_KEYS } from '../support/test-env';

interface SessionRow {
  session_id: string;
  origin: string;
  alert_labels: Record<string, string> | null;
}

/** Waits (polling, generous deadline) until `check` returns a value. */
async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  deadlineMs = 90_000,
): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what}: not seen within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A real Alertmanager routes a test alert through its webhook receiver to the service. */
describe('Alertmanager → POST /api/alerts/alertmanager (Debian prometheus-alertmanager)', () => {
  const stubbed = useStubbedApp({ ALERT_DEDUP_WINDOW_SECONDS: '3600' });
  const alertmanager = new AlertmanagerServer();
  const alertname = `CheckoutLatency${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    const [plan, final] = agentTurns(draftJson({ marker: 'AM-RELEASED' }));
    stubbed.stub.load({
      roles: {
        'diagnosis-agent': [
          { ...plan, match: alertname, turn: 0 },
          { ...final, match: alertname, turn: 1 },
        ],
        'semantic-guard': [{ ...SUPPORTED, match: '.' }],
      },
    });
    await alertmanager.start({
      webhookUrl: `${stubbed.app.baseUrl}/api/alerts/alertmanager`,
      bearerKey: TEST_KEYS.alertIngest,
    });
  });
  afterAll(() => alertmanager.stop());

  it('investigates a fired alert once, and records its resolution on the same session', async () => {
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const alert = {
      labels: { alertname, severity: 'critical', service: 'order-service' },
      annotations: { summary: 'Checkout p99 above 5s', description: 'order-service payments slow' },
      startsAt,
      generatorURL: 'http://prometheus.invalid/graph',
    };
    await alertmanager.fire([alert]);

    const session = await eventually('the alert group’s session in the session list', async () => {
      const list = await readTrace(stubbed.app.baseUrl, '/api/diagnosis/sessions?scope=alert&limit=100');
      return (list.body.sessions as SessionRow[] | undefined)?.find(
        (row) => row.alert_labels?.alertname === alertname,
      );
    });
    expect(session.origin).toBe('ALERT');
    const started = await eventually('the investigation’s run', async () => {
      const trace = await readTrace(stubbed.app.baseUrl, `/api/diagnosis/${session.session_id}/trace`);
      return (trace.body.runs as { run_id: string }[] | undefined)?.[0];
    });
    const trace = await waitForRunEnd(stubbed.app.baseUrl, session.session_id, started.run_id);
    expect(trace.run).toMatchObject({ status: 'SUCCESS', release_outcome: 'SUCCESS', intent: 'DIAGNOSIS' });
    expect((trace.run as { query: string }).query).toContain(`"${alertname}"`);
    expect(trace.session).toMatchObject({
      origin: 'ALERT',
      alert: {
        labels: { alertname },
        notifications: [{ status: 'firing', outcome: 'INVESTIGATION_STARTED' }],
      },
    });

    // The same alert again: Alertmanager keeps it in the group; nothing new starts.
    await alertmanager.fire([alert]);
    // Resolved: Alertmanager sends the group's resolution (send_resolved), recorded on the same session.
    await alertmanager.fire([{ ...alert, endsAt: new Date().toISOString() }]);
    const resolved = await eventually('the resolved notification on the session', async () => {
      const view = await readTrace(stubbed.app.baseUrl, `/api/diagnosis/${session.session_id}/trace`);
      const notifications = (view.body.session as { alert: { notifications: { outcome: string }[] } }).alert
        .notifications;
      return notifications.some((n) => n.outcome === 'RESOLVED_RECORDED') ? view : undefined;
    });
    expect(resolved.body.runs).toHaveLength(1);
    expect(alertmanager.stderr).not.toMatch(/Notify for alerts failed/);
  });
});
