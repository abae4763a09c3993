import { parseTargetsFile, TargetsFileError } from './notification-targets';

const ENV = {
  SLACK_URL: 'https://hooks.slack.com/services/T000/B000/XXXX',
  FEISHU_URL: 'https://open.feishu.cn/open-apis/bot/v2/hook/abc',
  FEISHU_SECRET: 'fs',
  DING_TOKEN: 'dtok',
  DING_SECRET: 'SECx',
  WECOM_KEY: 'wkey',
  HOOK_SECRET: 'hs',
};

const EVERY_KIND = `
targets:
  - name: ops-webhook
    kind: webhook
    url: https://hooks.example.com/diagnosis
    secret_env: HOOK_SECRET
  - name: ops-slack
    kind: slack
    url_env: SLACK_URL
  - name: ops-feishu
    kind: feishu
    url_env: FEISHU_URL
    secret_env: FEISHU_SECRET
  - name: ops-dingtalk
    kind: dingtalk
    access_token_env: DING_TOKEN
    secret_env: DING_SECRET
  - name: ops-wecom
    kind: wecom
    key_env: WECOM_KEY
`;

function problemsOf(text: string, env: Record<string, string> = ENV): string[] {
  try {
    parseTargetsFile(text, env);
  } catch (error) {
    if (error instanceof TargetsFileError) return error.problems;
    throw error;
  }
  throw new Error('the file was accepted');
}

describe('parseTargetsFile', () => {
  it('reads every kind, with secrets resolved from the environment', () => {
    expect(parseTargetsFile(EVERY_KIND, ENV)).toEqual([
      { name: 'ops-webhook', kind: 'webhook', url: 'https://hooks.example.com/diagnosis', secret: 'hs' },
      { name: 'ops-slack', kind: 'slack', url: ENV.SLACK_URL },
      { name: 'ops-feishu', kind: 'feishu', url: ENV.FEISHU_URL, secret: 'fs', message: 'interactive' },
      {
        name: 'ops-dingtalk',
        kind: 'dingtalk',
        url: 'https://oapi.dingtalk.com/robot/send?access_token=dtok',
        secret: 'SECx',
      },
      { name: 'ops-wecom', kind: 'wecom', url: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=wkey' },
    ]);
  });

  it('reads JSON too', () => {
    const json = JSON.stringify({ targets: [{ name: 'a', kind: 'slack', url_env: 'SLACK_URL' }] });
    expect(parseTargetsFile(json, ENV)).toEqual([{ name: 'a', kind: 'slack', url: ENV.SLACK_URL }]);
  });

  it.each([
    [
      'an unset secret variable, naming target and field',
      'targets:\n  - {name: ops, kind: dingtalk, access_token_env: NOT_SET}',
      'target "ops" (targets[0]).access_token_env: the environment variable NOT_SET is not set',
    ],
    [
      'a secret written in the URL',
      'targets:\n  - {name: ops, kind: wecom, url: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=abc", key_env: WECOM_KEY}',
      'target "ops" (targets[0]).url: must be an http(s) URL without user info or query (credentials go in the *_env keys)',
    ],
    [
      'a Slack URL in the file (it is the credential)',
      'targets:\n  - {name: ops, kind: slack, url: "https://hooks.slack.com/services/x"}',
      'target "ops" (targets[0]): Unrecognized key: "url"',
    ],
    [
      'an unknown kind',
      'targets:\n  - {name: ops, kind: teams, url: "https://x.example"}',
      'target "ops" (targets[0]).kind',
    ],
    [
      'an env value that is not a URL',
      'targets:\n  - {name: ops, kind: slack, url_env: FEISHU_SECRET}',
      'target "ops" (targets[0]).url_env: FEISHU_SECRET does not hold an http(s) URL',
    ],
    [
      'a webhook with neither url nor url_env',
      'targets:\n  - {name: ops, kind: webhook}',
      'target "ops" (targets[0]).url: give exactly one of url and url_env',
    ],
    [
      'a duplicate name',
      'targets:\n  - {name: ops, kind: slack, url_env: SLACK_URL}\n  - {name: ops, kind: slack, url_env: SLACK_URL}',
      'target "ops" (targets[1]): the name is used by an earlier target',
    ],
    [
      'a bad name, not echoed',
      'targets:\n  - {name: "Bad Name!", kind: slack, url_env: SLACK_URL}',
      'targets[0].name',
    ],
    ['no targets', 'targets: []', 'targets: must list at least one target'],
    ['not YAML', 'targets: [\n  - {', 'not valid YAML/JSON'],
    ['a duplicate key', 'targets:\n  - {name: a, name: b, kind: slack, url_env: SLACK_URL}', 'DUPLICATE_KEY'],
  ])('refuses %s', (_case, text, problem) => {
    const problems = problemsOf(text);
    expect(problems.join('\n')).toContain(problem);
  });

  it('never echoes a value from the file or the environment in its problems', () => {
    const text = 'targets:\n  - {name: ops, kind: slack, url_env: SLACK_URL, token: "sk-live-456"}';
    const problems = problemsOf(text, { SLACK_URL: 'not a url sk-live-789' }).join('\n');
    expect(problems).not.toMatch(/sk-live/);
  });
});
