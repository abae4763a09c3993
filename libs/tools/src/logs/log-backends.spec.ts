import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { ConfigValidationError } from '@app/config';
import { checkLogBackend, configureLogBackend, LOG_BACKENDS, REAL_LOG_SOURCE_KINDS } from './log-backends';
import { LogSourcePort } from './log-source.port';

const DEPS = { evidence: { maxRecordBytes: 1024 * 1024, maxAgentResultBytes: 64 * 1024 } };

describe('LOG_BACKENDS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'log-backends-'));
  beforeAll(() => {
    writeFileSync(
      join(dir, 'application.jsonl'),
      '{"timestamp":"2026-12-05T10:00:00Z","level":"ERROR","service":"order-service","message":"boom"}\n',
    );
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterAll(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What the registered backends need to build; a new backend with required keys adds them here. */
  const ENV = () => ({ LOGS_JSONL_DIR: dir, DEMO_MODE: 'true' });

  it('lists each kind once', () => {
    const kinds = LOG_BACKENDS.map((backend) => backend.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it.each(LOG_BACKENDS.map((backend) => [backend.kind, backend] as const))(
    'builds LOG_BACKEND=%s: a source exactly when it declares results, and its doctor lines',
    async (kind, definition) => {
      const backend = configureLogBackend({ LOG_BACKEND: kind, ...ENV() });
      expect(backend.kind).toBe(kind);
      const source = backend.create(DEPS);
      if (definition.results) expect(source).toBeInstanceOf(LogSourcePort);
      else expect(source).toBeNull();
      const findings = await checkLogBackend({ LOG_BACKEND: kind, ...ENV() });
      expect(findings.length).toBeGreaterThan(0);
      expect(findings.every((finding) => finding.check === 'logs')).toBe(true);
    },
  );

  it.each([['cls'], ['CLS'], ['file']])('refuses LOG_BACKEND=%s naming the key and the kinds', (kind) => {
    expect(() => configureLogBackend({ LOG_BACKEND: kind })).toThrow(ConfigValidationError);
    expect(() => configureLogBackend({ LOG_BACKEND: kind })).toThrow(
      'LOG_BACKEND must be one of the following values: jsonl, mock, none',
    );
  });

  it.each([
    [
      'a relation of the selected backend',
      { LOG_BACKEND: 'jsonl' },
      'LOGS_JSONL_DIR must name an existing directory',
    ],
    ['a key of a backend not selected', { LOG_BACKEND: 'none', LOGS_SCAN_WORKERS: '0' }, 'LOGS_SCAN_WORKERS'],
    [
      'a key of the mock backend',
      { LOG_BACKEND: 'jsonl', LOGS_JSONL_DIR: dir, DEMO_MODE: 'yes' },
      'DEMO_MODE',
    ],
  ])('refuses %s, naming the key', (_name, env, key) => {
    expect(() => configureLogBackend(env)).toThrow(ConfigValidationError);
    expect(() => configureLogBackend(env)).toThrow(key);
  });

  it('keeps a replay clock only where the backend reads LOGS_JSONL_NOW', () => {
    const now = '2026-12-05T10:30:00Z';
    expect(
      configureLogBackend({ LOG_BACKEND: 'jsonl', LOGS_JSONL_DIR: dir, LOGS_JSONL_NOW: now }).replayNow,
    ).toEqual(new Date(now));
    expect(configureLogBackend({ LOG_BACKEND: 'mock', LOGS_JSONL_NOW: now }).replayNow).toBeNull();
  });

  it('states as real data only the source kinds a backend declares real', () => {
    for (const backend of LOG_BACKENDS) {
      if (backend.results)
        expect(REAL_LOG_SOURCE_KINDS.has(backend.results.sourceKind)).toBe(backend.results.realData);
    }
    expect(REAL_LOG_SOURCE_KINDS.has('FILE')).toBe(true);
    expect(REAL_LOG_SOURCE_KINDS.has('MOCK')).toBe(false);
  });

  it.each([
    [{ LOG_BACKEND: 'nope' }, 'set LOG_BACKEND'],
    [{ LOG_BACKEND: 'jsonl' }, 'set LOGS_JSONL_DIR to the directory of your JSON-lines files'],
  ])('doctor: %j fails with the fix %s', async (env, fix) => {
    const [finding] = await checkLogBackend(env);
    expect(finding).toMatchObject({ check: 'logs', verdict: 'FAIL', fix });
  });

  it.each([
    [{ LOG_BACKEND: 'mock' }, 'WARN'],
    [{ LOG_BACKEND: 'mock', DEMO_MODE: 'true' }, 'OK'],
    [{ LOG_BACKEND: 'none' }, 'WARN'],
  ])('doctor: %j is %s', async (env, verdict) => {
    expect(await checkLogBackend(env)).toEqual([expect.objectContaining({ check: 'logs', verdict })]);
  });
});
