import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { INestApplication } from '@nestjs/common';
import { createApp } from '../../apps/server/src/bootstrap';
import { KnowledgeSearchPort } from '../../libs/tools/src/knowledge/knowledge-search.port';
import { StubLlmServer } from './stub-llm/stub-llm-server';

export interface RunningApp {
  app: INestApplication;
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Boots the real application (real MySQL, Redis, config validation) on an ephemeral port.
 * `env` overrides process.env for the duration of the boot only. The port opens before the knowledge
 * index has loaded; unless `awaitKnowledge` is false this waits for the load to end, so a spec's first
 * lookup searches instead of meeting KNOWLEDGE_INDEX_LOADING.
 */
export async function startApp(
  env: Record<string, string> = {},
  { awaitKnowledge = true }: { awaitKnowledge?: boolean } = {},
): Promise<RunningApp> {
  // Each app counts its own rate limit unless a test shares one on purpose (same prefix).
  const throttle = { REDIS_THROTTLE_KEY_PREFIX: `e2e:throttle:${Math.random().toString(36).slice(2, 10)}` };
  const app = await withEnv({ ...throttle, ...env }, () => createApp());
  await app.listen(0, '127.0.0.1');
  if (awaitKnowledge) await app.get(KnowledgeSearchPort).loaded();
  const address = app.getHttpServer().address() as { port: number };
  return { app, baseUrl: `http://127.0.0.1:${address.port}`, close: () => app.close() };
}

export async function withEnv<T>(env: Record<string, string>, action: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    return await action();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

export interface StubbedApp {
  readonly stub: StubLlmServer;
  readonly app: RunningApp;
}

/**
 * Registers the usual lifecycle of a chat-level e2e file: a fresh stub LLM and the real app pointed at
 * it (with `env`) before all tests, the request log cleared before each, both stopped after all.
 */
export function useStubbedApp(env: Record<string, string> = {}): StubbedApp {
  const stub = new StubLlmServer();
  let app: RunningApp | undefined;
  beforeAll(async () => {
    app = await startApp({ LLM_BASE_URL: await stub.start(), ...env });
  });
  afterAll(async () => {
    await app?.close();
    await stub.stop();
  });
  beforeEach(() => {
    stub.requests.length = 0;
  });
  return {
    stub,
    get app(): RunningApp {
      if (!app) throw new Error('the app is not started yet');
      return app;
    },
  };
}
