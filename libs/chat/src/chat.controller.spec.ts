import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { SUPPORTED, draftJson } from '@test/support/diagnosis-scripts';
import type { StubReply } from '@test/support/stub-llm/stub-script';
import { chatKit } from '@test/support/unit-chat';
import { agentTurnsOnFakeLogs } from '@test/support/unit-diagnosis';
import { ChatCapacity } from './chat-capacity';
import { ChatController } from './chat.controller';

/** The part of an express Response the controller uses, keeping the bytes it would have sent. */
class FakeResponse extends EventEmitter {
  statusCode = 200;
  headers: Record<string, string> = {};
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  body = '';
  jsonBody: unknown = undefined;

  writeHead(status: number, headers: Record<string, string>) {
    this.statusCode = status;
    Object.assign(this.headers, headers);
    this.headersSent = true;
    return this;
  }

  write(chunk: string) {
    if (this.writableEnded) throw new Error('write after end');
    this.body += chunk;
    return true;
  }

  status(code: number) {
    this.statusCode = code;
    return this;
  }

  set(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  json(value: unknown) {
    this.jsonBody = value;
    this.headersSent = true;
    this.end();
    return this;
  }

  end() {
    this.writableEnded = true;
    this.writableFinished = true;
    return this;
  }

  /** The named SSE events in the order they were written. */
  get events(): { event: string; data: Record<string, unknown> }[] {
    return [...this.body.matchAll(/^event: (\w+)\ndata: (.*)\n\n/gm)].map((match) => ({
      event: match[1],
      data: JSON.parse(match[2]) as Record<string, unknown>,
    }));
  }
}

const CONFIG = {
  maxInFlight: 1,
  maxQueue: 0,
  maxQueuedPerKey: 1,
  retryAfterSeconds: 7,
  heartbeatMs: 60_000,
  alertShare: { maxInFlight: 0, maxQueue: 0 },
  queueStatusMs: 20,
};
const CALLER = { keyDigest: 'a'.repeat(64), scopes: ['chat'] };

function controllerFor(roles: Record<string, StubReply[]>, capacity = new ChatCapacity(1, 0)) {
  const kit = chatKit(roles);
  return { kit, capacity, controller: new ChatController(kit.useCase, capacity, CONFIG, kit.metrics) };
}

async function post(
  controller: ChatController,
  body: { query: string; session_id?: string },
  res = new FakeResponse(),
) {
  await controller.chat(body as never, CALLER as never, res as unknown as Response);
  return res;
}

/** Waits for a condition on the event loop (no fixed sleep decides an outcome). */
async function until(condition: () => boolean, deadlineMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > deadlineMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('ChatController', () => {
  it('streams metadata → status* → content → done as named SSE events, then ends', async () => {
    const { controller, capacity, kit } = controllerFor({
      'intent-router': [{ content: 'DIAGNOSIS' }],
      'diagnosis-agent': agentTurnsOnFakeLogs(draftJson({ cite: ['call_logs_1'] })),
      'semantic-guard': [SUPPORTED],
    });
    const res = await post(controller, { query: 'order-123 payment times out' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['x-accel-buffering']).toBe('no');
    const names = res.events.map((event) => event.event);
    expect(names[0]).toBe('metadata');
    expect(names.slice(1, -2).every((name) => name === 'status')).toBe(true);
    expect(names.slice(-2)).toEqual(['content', 'done']);
    expect(res.events.map((event) => event.data.code).filter(Boolean)).toEqual([
      'ROUTING',
      'PLANNING',
      'DIAGNOSIS_PLAN',
      'TOOL_RUNNING',
      'TOOL_DONE',
      'EVIDENCE_VALIDATING',
      'SEMANTIC_VALIDATING',
      'RELEASING',
    ]);
    expect(res.events[0].data).toEqual({
      session_id: kit.runs.started[0].sessionId,
      run_id: kit.runs.started[0].runId,
    });
    expect(res.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
    expect(res.writableEnded).toBe(true);
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('a session of another key is a 404 before any stream', async () => {
    const { controller, kit } = controllerFor({});
    kit.runs.owners.set('s-other', 'b'.repeat(64));
    const res = await post(controller, { query: 'q', session_id: 's-other' });
    expect(res.statusCode).toBe(404);
    expect(res.jsonBody).toEqual({ statusCode: 404, error: 'Not Found', message: 'session not found' });
    expect(res.body).toBe('');
  });

  it('a session that cannot be checked (database down) is a 503 with Retry-After, no stream', async () => {
    const { controller, kit, capacity } = controllerFor({});
    kit.runs.findOwnedSession = () => Promise.reject(new Error('database down'));
    const res = await post(controller, { query: 'q', session_id: 's-1' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.jsonBody).toMatchObject({ message: 'The service cannot start a run right now; retry later.' });
    expect(JSON.stringify(res.jsonBody)).not.toContain('database down');
    expect(res.body).toBe('');
    expect(capacity.load.inFlight).toBe(0);
  });

  it('a run whose start cannot be recorded (database down) still hears metadata first, then RUN_NOT_RECORDED', async () => {
    const { controller, kit, capacity } = controllerFor({});
    kit.runs.startFails = true;
    const res = await post(controller, { query: 'q' });
    expect(res.statusCode).toBe(200);
    expect(res.events.map((event) => [event.event, event.data.code])).toEqual([
      ['metadata', undefined],
      ['failure', 'RUN_NOT_RECORDED'],
      ['done', undefined],
    ]);
    expect(res.body).not.toContain('database down');
    expect(kit.runs.started).toHaveLength(0);
    expect(capacity.load.inFlight).toBe(0);
  });

  it('a queued request hears queued at once and again when its place changes, then the normal stream', async () => {
    const capacity = new ChatCapacity(1, 4);
    const hold = await capacity.acquire('b'.repeat(64), new AbortController().signal);
    const earlier = new AbortController();
    const waiting = capacity.acquire('c'.repeat(64), earlier.signal);
    const { controller } = controllerFor(
      { 'intent-router': [{ content: 'SYSTEM_CHAT' }], 'system-chat': [{ content: 'hi' }] },
      capacity,
    );
    const res = new FakeResponse();
    const done = post(controller, { query: 'hello' }, res);
    await until(() => res.events.length === 1);
    expect(res.statusCode).toBe(200);
    expect(res.events).toEqual([{ event: 'queued', data: { ahead: 1 } }]);
    earlier.abort();
    await waiting;
    await until(() => res.events.length === 2);
    expect(res.events[1]).toEqual({ event: 'queued', data: { ahead: 0 } });
    if (hold.granted) hold.release();
    await done;
    const names = res.events.map((event) => event.event);
    expect(names.slice(0, 3)).toEqual(['queued', 'queued', 'metadata']);
    expect(names.slice(-2)).toEqual(['content', 'done']);
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('a queued client that leaves gives its place up and hears nothing more', async () => {
    const capacity = new ChatCapacity(1, 4);
    const hold = await capacity.acquire('b'.repeat(64), new AbortController().signal);
    const { controller, kit } = controllerFor({}, capacity);
    const res = new FakeResponse();
    const done = post(controller, { query: 'hello' }, res);
    await until(() => res.events.length === 1);
    res.emit('close');
    await done;
    expect(res.events.map((event) => event.event)).toEqual(['queued']);
    expect(res.writableEnded).toBe(true);
    expect(capacity.load.queued).toBe(0);
    expect(kit.runs.started).toHaveLength(0);
    if (hold.granted) hold.release();
  });

  it('at capacity: 503 with Retry-After, and the run is never started', async () => {
    const capacity = new ChatCapacity(1, 0);
    const hold = await capacity.acquire('another-key', new AbortController().signal);
    const { controller, kit } = controllerFor({}, capacity);
    const res = await post(controller, { query: 'q' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.jsonBody).toMatchObject({ message: 'The service is at capacity; retry later.' });
    expect(kit.runs.started).toHaveLength(0);
    if (hold.granted) hold.release();
  });

  it('a busy service and a key that holds its share of the queue: 429 naming the setting; other keys still queue', async () => {
    const capacity = new ChatCapacity(1, 2, 1);
    const running = await capacity.acquire('b'.repeat(64), new AbortController().signal);
    const queued = capacity.acquire(CALLER.keyDigest, new AbortController().signal);
    const { controller, kit } = controllerFor({}, capacity);
    const res = await post(controller, { query: 'q' });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.jsonBody).toMatchObject({ message: expect.stringContaining('CHAT_MAX_QUEUED_PER_KEY') });
    expect(kit.runs.started).toHaveLength(0);
    const other = capacity.acquire('c'.repeat(64), new AbortController().signal);
    expect(capacity.load.queued).toBe(2);
    if (running.granted) running.release();
    const first = await queued;
    if (first.granted) first.release();
    const second = await other;
    if (second.granted) second.release();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('a client that disconnects cancels the run; nothing follows what was already sent', async () => {
    const { controller, kit } = controllerFor({
      'intent-router': [{ content: 'DIAGNOSIS', delay_ms: 10_000 }],
    });
    const res = new FakeResponse();
    const done = post(controller, { query: 'q' }, res);
    setTimeout(() => res.emit('close'), 30);
    await done;
    expect(res.events.map((event) => event.event)).toEqual(['metadata', 'status']);
    expect(kit.journal.finished).toMatchObject({ status: 'CANCELLED', errorCode: 'CLIENT_DISCONNECTED' });
  });
});
