import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigValidationError } from '@app/config';
import { loadNotifyConfig } from './notify.config';

const dir = mkdtempSync(join(tmpdir(), 'notify-config-'));
const fileWith = (text: string) => {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  return file;
};
const problemsOf = (env: Record<string, string>) => {
  try {
    loadNotifyConfig(env);
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
};

describe('loadNotifyConfig', () => {
  it('without a targets file, notifications are off', () => {
    expect(loadNotifyConfig({})).toMatchObject({
      targets: [],
      publicBaseUrl: null,
      policy: { maxAttempts: 4 },
    });
  });

  it('reads the file and resolves its secrets', () => {
    const file = fileWith('targets:\n  - {name: ops, kind: slack, url_env: OPS_SLACK_URL}');
    const config = loadNotifyConfig({
      NOTIFY_TARGETS_FILE: file,
      NOTIFY_PUBLIC_BASE_URL: 'https://agent.example.com',
      OPS_SLACK_URL: 'https://hooks.slack.com/services/T/B/X',
    });
    expect(config.targets).toEqual([
      { name: 'ops', kind: 'slack', url: 'https://hooks.slack.com/services/T/B/X' },
    ]);
  });

  it.each([
    [
      'an unset secret stops start-up naming the target and field',
      { NOTIFY_TARGETS_FILE: fileWith('targets:\n  - {name: ops, kind: slack, url_env: OPS_SLACK_URL}') },
      'NOTIFY_TARGETS_FILE: target "ops" (targets[0]).url_env: the environment variable OPS_SLACK_URL is not set',
    ],
    [
      'a missing file',
      { NOTIFY_TARGETS_FILE: join(dir, 'absent.yaml') },
      'NOTIFY_TARGETS_FILE: cannot read the file (ENOENT)',
    ],
    [
      'no public base URL',
      { NOTIFY_TARGETS_FILE: fileWith('targets: []'), NOTIFY_PUBLIC_BASE_URL: '' },
      'NOTIFY_PUBLIC_BASE_URL must be',
    ],
    [
      'a base URL Slack links cannot hold',
      { NOTIFY_TARGETS_FILE: fileWith('targets: []'), NOTIFY_PUBLIC_BASE_URL: 'https://x.example/a|b' },
      'NOTIFY_PUBLIC_BASE_URL must be',
    ],
    ['attempts out of range', { NOTIFY_MAX_ATTEMPTS: '0' }, 'NOTIFY_MAX_ATTEMPTS'],
    [
      'a cap below the base',
      { NOTIFY_BACKOFF_BASE_MS: '500', NOTIFY_BACKOFF_MAX_MS: '100' },
      'NOTIFY_BACKOFF_MAX_MS',
    ],
  ])('refuses %s', (_name, env, problem) => {
    expect(problemsOf({ NOTIFY_PUBLIC_BASE_URL: 'https://agent.example.com', ...env }).join('\n')).toContain(
      problem,
    );
  });
});
