import { Connection, createConnection, RowDataPacket } from 'mysql2/promise';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { HaproxyFrontend, Replica } from '../support/replicas';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_MYSQL } from '../support/test-env';
import { scaled } from '../support/test-timeouts';

// The longest test or hook here needs up to 90 s on an idle machine; the suite's
// time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(90_000));

/** Every diagnosis: router, agent plan + query_logs, agent draft, SemanticGuard, each model call 250 ms. */
function repeatingScript(latencyMs: number): ConstructorParameters<typeof StubLlmServer>[0] {
  const [plan, final] = agentTurns(draftJson());
  return {
    repeat: true,
    roles: {
      'intent-router': [{ content: 'DIAGNOSIS', delay_ms: latencyMs }],
      'diagnosis-agent': [
        { ...plan, turn: 0, delay_ms: latencyMs },
        { ...final, turn: 1, delay_ms: latencyMs },
      ],
      'semantic-guard': [{ ...SUPPORTED, delay_ms: latencyMs }],
    },
  };
}

interface StreamResult {
  runId?: string;
  outcome?: unknown;
  broken: boolean;
}

interface RunRow extends RowDataPacket {
  run_id: string;
  status: string;
  error_code: string | null;
  ended_at: Date | null;
  owner_id: string;
}

describe('two replicas behind HAProxy on shared MySQL and Redis', () => {
  const stub = new StubLlmServer(repeatingScript(250));
  const lease = {
    RUN_HEARTBEAT_MS: '300',
    RUN_LEASE_MS: '1500',
    REDIS_THROTTLE_KEY_PREFIX: `e2e:throttle:replicas-${Date.now().toString(36)}`,
  };
  let doomed: Replica;
  let survivor: Replica;
  const proxy = new HaproxyFrontend();
  let db: Connection;

  beforeAll(async () => {
    const llm = await stub.start();
    doomed = new Replica({ LLM_BASE_URL: llm, ...lease });
    survivor = new Replica({ LLM_BASE_URL: llm, ...lease });
    await doomed.start();
    await survivor.start();
    await proxy.start([doomed.port, survivor.port]);
    db = await createConnection({ ...TEST_MYSQL, database: process.env.E2E_SERVICE_DB });
  });
  afterAll(async () => {
    await proxy.stop();
    await survivor?.stop();
    await doomed?.stop();
    await db?.end();
    await stub.stop();
  });

  const runsOf = async (replica: Replica): Promise<RunRow[]> =>
    (
      await db.query<RunRow[]>(
        'SELECT run_id, status, error_code, ended_at, owner_id FROM diagnosis_run WHERE owner_id LIKE ?',
        [`%:${replica.pid}:%`],
      )
    )[0];

  it('after a kill -9 of one replica every run ends in exactly one terminal state and the other is unaffected', async () => {
    let loading = true;
    const results: StreamResult[] = [];
    const worker = async () => {
      while (loading) {
        const result: StreamResult = { broken: false };
        try {
          const response = await postChat(proxy.baseUrl, { query: 'order-123 payment times out' });
          result.runId = response.events.find((e) => e.event === 'metadata')?.data.run_id as string;
          result.outcome = response.events.find((e) => e.event === 'done')?.data.outcome;
          result.broken = result.outcome === undefined;
        } catch {
          result.broken = true;
        }
        results.push(result);
      }
    };
    const workers = Array.from({ length: 6 }, () => worker());

    // Kill one replica while it has runs in flight.
    for (let i = 0; i < 200; i += 1) {
      if ((await runsOf(doomed)).some((run) => run.status === 'RUNNING')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await doomed.kill9();
    // Counted once the process is gone (it can start or end no run after that) and well inside the
    // lease, before the survivor may close anything.
    await new Promise((r) => setTimeout(r, 100));
    const inFlightAtKill = (await runsOf(doomed)).filter((run) => run.status === 'RUNNING').length;
    await new Promise((r) => setTimeout(r, 4000));
    loading = false;
    await Promise.all(workers);

    // The survivor closes the dead replica's runs once their lease ran out.
    let dead: RunRow[] = [];
    for (let i = 0; i < 100; i += 1) {
      dead = await runsOf(doomed);
      if (dead.every((run) => run.status !== 'RUNNING')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const alive = await runsOf(survivor);

    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(dead.filter((run) => run.status === 'FAILED' && run.error_code === 'ABANDONED').length).toBe(
      inFlightAtKill,
    );
    for (const run of [...dead, ...alive]) {
      expect(['SUCCESS', 'FALLBACK', 'FAILED', 'CANCELLED']).toContain(run.status);
      expect(run.ended_at).not.toBeNull();
    }
    // The survivor's runs and streams are untouched by the crash.
    expect(alive.length).toBeGreaterThan(inFlightAtKill);
    expect(alive.every((run) => run.status === 'SUCCESS')).toBe(true);
    const aliveIds = new Set(alive.map((run) => run.run_id));
    const survivorStreams = results.filter((r) => r.runId && aliveIds.has(r.runId));
    expect(survivorStreams.length).toBe(alive.length);
    expect(survivorStreams.every((r) => !r.broken && r.outcome === 'SUCCESS')).toBe(true);
    // Only streams of the dead replica broke.
    const deadIds = new Set(dead.map((run) => run.run_id));
    expect(results.filter((r) => r.broken).every((r) => !r.runId || deadIds.has(r.runId))).toBe(true);
  });
});
