import { describe, expect, it } from '@jest/globals';
import { lookupKnowledgeConfig } from './knowledge/lookup-knowledge.config';
import { queryLogsConfig } from './logs/query-logs.config';
import { queryMysqlConfig } from './mysql/query-mysql.config';

const KEYS = /^HARNESS_(RAG|LOGS|MYSQL)_/;

/** Runs `action` with exactly `env` as the tool-limit keys of process.env (the slices read process.env). */
function withEnvForTest(env: Record<string, string>, action: () => void): void {
  const saved = Object.fromEntries(Object.entries(process.env).filter(([key]) => KEYS.test(key)));
  for (const key of Object.keys(saved)) delete process.env[key];
  Object.assign(process.env, env);
  try {
    action();
  } finally {
    for (const key of Object.keys(process.env)) if (KEYS.test(key)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

describe("the built-in tools' own limit slices", () => {
  it('read the published HARNESS_ keys with their defaults', () => {
    withEnvForTest({}, () => {
      expect(lookupKnowledgeConfig()).toEqual({ maxEvidence: 5, maxExcerptChars: 800, maxTotalChars: 4000 });
      expect(queryLogsConfig()).toMatchObject({
        maxPatterns: 10,
        defaultLookbackMinutes: 30,
        maxLookbackMinutes: 1440,
      });
      expect(queryMysqlConfig()).toEqual({
        maxRows: 50,
        maxCellChars: 256,
        maxTotalBytes: 16 * 1024,
        queryTimeoutMs: 5000,
        maxResultBytes: 1024 * 1024,
        checkIntervalMs: 300_000,
      });
    });
    withEnvForTest({ HARNESS_MYSQL_MAX_ROWS: '20', HARNESS_RAG_MAX_EVIDENCE: '3' }, () => {
      expect(queryMysqlConfig().maxRows).toBe(20);
      expect(lookupKnowledgeConfig().maxEvidence).toBe(3);
    });
  });

  it.each([
    [{ HARNESS_RAG_MAX_EVIDENCE: '0' }, lookupKnowledgeConfig, /HARNESS_RAG_MAX_EVIDENCE/],
    [{ HARNESS_LOGS_MAX_PATTERNS: 'many' }, queryLogsConfig, /HARNESS_LOGS_MAX_PATTERNS/],
    [
      { HARNESS_LOGS_DEFAULT_LOOKBACK_MINUTES: '120', HARNESS_LOGS_MAX_LOOKBACK_MINUTES: '60' },
      queryLogsConfig,
      /HARNESS_LOGS_DEFAULT_LOOKBACK_MINUTES must not exceed HARNESS_LOGS_MAX_LOOKBACK_MINUTES/,
    ],
    [{ HARNESS_MYSQL_QUERY_TIMEOUT_MS: '50' }, queryMysqlConfig, /HARNESS_MYSQL_QUERY_TIMEOUT_MS/],
  ] as const)('refuses %j, naming the key', (env, load, message) => {
    withEnvForTest(env, () => expect(() => load()).toThrow(message));
  });
});
