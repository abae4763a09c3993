import { ConfigValidationError, validateEnv } from '@app/config';
import { defaultScanWorkers } from '../../log-scan-pool';
import { FileLogsEnv } from './file-logs.env';

describe('the log scan settings', () => {
  it.each([
    [{}, { LOGS_SCAN_WORKERS: undefined, LOGS_MAX_LINE_BYTES: 1024 * 1024 }],
    [
      { LOGS_SCAN_WORKERS: '4', LOGS_MAX_LINE_BYTES: '65536' },
      { LOGS_SCAN_WORKERS: 4, LOGS_MAX_LINE_BYTES: 65536 },
    ],
  ])('accepts %j', (env, expected) => {
    expect(validateEnv(FileLogsEnv, env)).toMatchObject(expected);
  });

  it.each([
    ['LOGS_SCAN_WORKERS', '0'],
    ['LOGS_SCAN_WORKERS', '33'],
    ['LOGS_SCAN_WORKERS', 'two'],
    ['LOGS_MAX_LINE_BYTES', '100'],
    ['LOGS_MAX_LINE_BYTES', String(512 * 1024 * 1024)],
  ])('refuses %s=%s, naming the key', (key, value) => {
    expect(() => validateEnv(FileLogsEnv, { [key]: value })).toThrow(ConfigValidationError);
    expect(() => validateEnv(FileLogsEnv, { [key]: value })).toThrow(key);
  });

  it.each([
    [1, 1],
    [2, 2],
    [16, 2],
  ])('defaults to %i cores -> %i workers', (cores, workers) => {
    expect(defaultScanWorkers(cores)).toBe(workers);
  });
});
