import { getEventListeners } from 'node:events';
import { HumanMessage } from '@langchain/core/messages';
import { ModelGateway } from '@app/harness';
import { createHarnessFixture, HarnessFixture, startTestRun } from '../support/harness-fixture';

/**
 * Everything that attaches to a run's signal (or to the client's signal above it) detaches when its
 * call, wait or phase ends. A listener left there keeps that call — and through LangChain's composite
 * signals, the whole agent graph — reachable: a long-running service then grows with every run it has
 * served (issue 26; the tool boundary's own case is in tool-boundary-error-codes.medium-spec.ts).
 */
describe('run signals keep no listener of an ended call, wait or phase', () => {
  let fixture: HarnessFixture;
  let gateway: ModelGateway;
  const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

  beforeAll(async () => {
    fixture = await createHarnessFixture({ harnessEnv: { HARNESS_MODEL_CALL_TIMEOUT_MS: '500' } });
    gateway = fixture.app.get(ModelGateway);
  });
  afterAll(() => fixture.close());

  it.each([
    ['a completed model call', { content: 'hello' }],
    ['a model call the provider refuses', { error: 400 }],
    ['a model call that times out', { delay_ms: 2000, content: 'late' }],
  ])('%s leaves no listener on the run signal', async (_name, reply) => {
    fixture.stub.load({ roles: { 'system-chat': [reply, reply, reply] } });
    const ctx = await startTestRun(fixture);
    const before = listeners(ctx.signal);
    for (let i = 0; i < 3; i++)
      await gateway
        .invoke(ctx, { role: 'system-chat', messages: [new HumanMessage(`hi ${i}`)] })
        .catch(() => undefined);
    expect(listeners(ctx.signal)).toBe(before);
    ctx.close();
  });

  it('a model call retried after HTTP 429 leaves no listener from its back-off wait', async () => {
    fixture.stub.load({
      roles: { 'system-chat': [{ error: 429, retry_after: '0' }, { content: 'hello' }] },
    });
    const ctx = await startTestRun(fixture);
    const before = listeners(ctx.signal);
    await gateway
      .invoke(ctx, { role: 'system-chat', messages: [new HumanMessage('hi')] })
      .catch(() => undefined);
    expect(listeners(ctx.signal)).toBe(before);
    ctx.close();
  });

  it('a closed phase and a closed run leave no listener on the signal above them', async () => {
    const client = new AbortController();
    const ctx = await startTestRun(fixture, { parentSignal: client.signal });
    const phase = ctx.withTimeReserve(1000);
    expect(listeners(ctx.signal)).toBe(1);
    phase.close();
    expect(listeners(ctx.signal)).toBe(0);
    ctx.close();
    expect(listeners(client.signal)).toBe(0);
  });
});
