import { randomUUID } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  harnessConfig,
  HarnessRetryPolicies,
  llmConfig,
  loadLlmConfig,
  loadHarnessConfig,
  redisConfig,
  RunContext,
} from '@app/harness';
import {
  loadMysqlToolsConfig,
  lookupKnowledgeConfig,
  queryLogsConfig,
  queryMysqlConfig,
  toolsConfig,
} from '@app/tools';
import { withEnv } from './app-under-test';
import {
  databaseConfig,
  DatabaseConfig,
  RunJournalRepository,
  RunRepository,
  traceConfig,
  TraceConfig,
} from '@app/trace';
import { AppModule } from '../../apps/server/src/app.module';
import { KnowledgeSearchPort } from '../../libs/tools/src/knowledge/knowledge-search.port';
import { StubLlmServer } from './stub-llm/stub-llm-server';
import { TEST_RUN_LIMITS } from './run-limits';

export interface HarnessFixture {
  app: INestApplication;
  stub: StubLlmServer;
  close(): Promise<void>;
}

/**
 * The real application module (MySQL, Redis, config) with the Harness limits replaced for a test and
 * the LLM pointed at a fresh stub server.
 */
export interface FixtureOptions {
  /** HARNESS_* values for this fixture only (also the built-in tools' HARNESS_RAG/LOGS/MYSQL_* limits). */
  harnessEnv?: Record<string, string>;
  redis?: Partial<ReturnType<typeof redisConfig>>;
  /** LLM_* variables for this fixture only (knobs, per-role max tokens). */
  llmEnv?: Record<string, string>;
  /** A query_mysql allowlist file for this fixture only. */
  mysqlToolsConfig?: string;
  /** Service-database settings for this fixture only (lock waits, write grace). */
  database?: Partial<DatabaseConfig>;
  /** Trace settings for this fixture only (run lease and heartbeat). */
  trace?: Partial<TraceConfig>;
}

export async function createHarnessFixture(options: FixtureOptions = {}): Promise<HarnessFixture> {
  const stub = new StubLlmServer();
  const baseUrl = await stub.start();
  const tools = toolsConfig();
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
    .overrideProvider(databaseConfig.KEY)
    .useValue({ ...databaseConfig(), ...options.database })
    .overrideProvider(traceConfig.KEY)
    .useValue({ ...traceConfig(), ...options.trace })
    .overrideProvider(redisConfig.KEY)
    .useValue({ ...redisConfig(), ...options.redis })
    .overrideProvider(toolsConfig.KEY)
    .useValue(
      options.mysqlToolsConfig
        ? { ...tools, mysqlDataSources: loadMysqlToolsConfig(options.mysqlToolsConfig) }
        : tools,
    )
    .overrideProvider(harnessConfig.KEY)
    .useValue(loadHarnessConfig({ ...process.env, ...options.harnessEnv }))
    // The built-in tools' limits keep their HARNESS_ key names but are the tools' own config slices.
    .overrideProvider(queryMysqlConfig.KEY)
    .useValue(await withEnv(options.harnessEnv ?? {}, async () => queryMysqlConfig()))
    .overrideProvider(queryLogsConfig.KEY)
    .useValue(await withEnv(options.harnessEnv ?? {}, async () => queryLogsConfig()))
    .overrideProvider(lookupKnowledgeConfig.KEY)
    .useValue(await withEnv(options.harnessEnv ?? {}, async () => lookupKnowledgeConfig()))
    .overrideProvider(llmConfig.KEY)
    .useValue(
      loadLlmConfig({
        ...process.env,
        LLM_BASE_URL: baseUrl,
        LLM_API_KEY: 'stub-key',
        LLM_MODEL: 'deepseek-chat',
        PROMPTS_DIR: 'prompts',
        ...options.llmEnv,
      }),
    )
    .compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  // As startApp: the knowledge index loads in the background; a spec starts once that I/O has ended, so
  // no connection of the service pool is still the loader's when a spec freezes or cuts the database.
  await app.get(KnowledgeSearchPort).loaded();
  return {
    app,
    stub,
    close: async () => {
      await app.close();
      await stub.stop();
    },
  };
}

export interface TestRunOptions {
  timeoutMs?: number;
  limits?: Partial<Parameters<typeof RunContext.start>[0]['limits']>;
  parentSignal?: AbortSignal;
}

/** A persisted run (session + diagnosis_run rows) and its RunContext; its journal writes on flush(). */
export async function startTestRun(
  fixture: HarnessFixture,
  options: TestRunOptions = {},
): Promise<RunContext> {
  const sessionId = `s-${randomUUID()}`;
  const runId = `r-${randomUUID()}`;
  await fixture.app
    .get(RunRepository)
    .startRun({ sessionId, runId, query: 'order-123 payment times out', ownerKeyDigest: '0'.repeat(64) });
  return RunContext.start({
    sessionId,
    runId,
    journal: fixture.app.get(RunJournalRepository).open(runId),
    timeoutMs: options.timeoutMs ?? 30_000,
    retryPolicies: HarnessRetryPolicies.defaults(),
    parentSignal: options.parentSignal,
    limits: { ...TEST_RUN_LIMITS, ...options.limits },
  });
}
