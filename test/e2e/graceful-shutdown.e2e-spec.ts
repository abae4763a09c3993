import { afterAll, describe, expect, it } from '@jest/globals';
import { Agent, request } from 'node:http';
import { startApp, RunningApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { parseSse } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_KEYS } from '../support/test-env';

interface Reply {
  status: number;
  connection: string | undefined;
  body: string;
}

/** One request on the shared keep-alive agent; resolves with the error code when the connection is refused or reset. */
function send(
  agent: Agent,
  url: string,
  init: { method?: string; body?: string } = {},
): Promise<Reply | string> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        agent,
        method: init.method ?? 'GET',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEYS.chat },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }),
        );
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'ERROR'));
    req.end(init.body);
  });
}

describe('graceful shutdown with a client that keeps its connection busy', () => {
  const [plan, final] = agentTurns(draftJson());
  const stub = new StubLlmServer({
    roles: {
      'intent-router': [{ content: 'DIAGNOSIS', delay_ms: 400 }],
      'diagnosis-agent': [plan, final],
      'semantic-guard': [SUPPORTED],
    },
  });
  let running: RunningApp | undefined;
  let closing: Promise<void> | undefined;
  afterAll(async () => {
    await closing;
    await stub.stop();
  });

  it('finishes the stream in flight, tells the next request on that connection to close, and then stops', async () => {
    running = await startApp({ LLM_BASE_URL: await stub.start() });
    const { baseUrl } = running;
    // One socket, reused for every request, as a browser tab polling a trace page does.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });

    const stream = send(agent, `${baseUrl}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ query: 'order-123 payment times out' }),
    });
    // Shut down while the diagnosis is still in its router call.
    await new Promise((resolve) => setTimeout(resolve, 150));
    let closed = false;
    closing = running.close().then(() => {
      closed = true;
    });

    const diagnosis = await stream;
    const polls: (Reply | string)[] = [];
    // Without draining, this client would hold the process open for as long as it keeps polling.
    for (let i = 0; i < 40 && !closed; i += 1) {
      const reply = await send(agent, `${baseUrl}/health`);
      polls.push(reply);
      if (typeof reply === 'string') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await closing;
    agent.destroy();

    expect(typeof diagnosis).toBe('object');
    expect(parseSse((diagnosis as Reply).body).at(-1)).toEqual({
      event: 'done',
      data: { outcome: 'SUCCESS' },
    });
    expect(closed).toBe(true);
    expect(polls.length).toBeLessThan(40);
    const answered = polls.filter((poll): poll is Reply => typeof poll === 'object');
    expect(answered.length).toBeLessThanOrEqual(1);
    expect(answered.every((poll) => poll.connection === 'close')).toBe(true);
    expect(polls.filter((poll) => typeof poll === 'string').every((code) => code === 'ECONNREFUSED')).toBe(
      true,
    );
  });
});
