import { createHmac } from 'node:crypto';
import type { NotificationMessage } from '../notification-message';
import type { NotificationTarget } from '../notification-targets';
import { utf8Bytes } from '../text-bounds';
import { classifyDingTalkBody, dingtalkSignature } from './dingtalk-format';
import { classifyFeishuBody, feishuSignature } from './feishu-format';
import { classifySlackBody, SLACK_SECTION_MAX } from './slack-format';
import { buildRequest, classifyBody } from './vendor-formats';
import { webhookSignature } from './webhook-format';
import { classifyWeComBody, WECOM_CONTENT_MAX_BYTES } from './wecom-format';

const MESSAGE: NotificationMessage = {
  runId: 'run-1',
  sessionId: 'session-1',
  trigger: 'alert',
  outcome: 'SUCCESS',
  released: true,
  title: '[SUCCESS] Run finished · alert',
  text: 'payment timeouts come from pool exhaustion <@all> [x](https://evil.example) @13800001111',
  reason: null,
  alertLabels: { alertname: 'PaymentTimeouts', severity: 'critical' },
  runUrl: 'https://agent.example.com/#/runs/session-1/run-1',
};
const CONTEXT = { nowMs: 1_700_000_000_123, idempotencyKey: 'key-1' };

const TARGETS = {
  webhook: { name: 'hook', kind: 'webhook', url: 'https://hooks.example.com/in', secret: 's3cret' },
  slack: { name: 'slack', kind: 'slack', url: 'https://hooks.slack.com/services/T/B/X' },
  feishuCard: {
    name: 'feishu',
    kind: 'feishu',
    url: 'https://open.feishu.cn/open-apis/bot/v2/hook/abc',
    secret: 'demo',
    message: 'interactive',
  },
  feishuText: {
    name: 'feishu-text',
    kind: 'feishu',
    url: 'https://open.feishu.cn/open-apis/bot/v2/hook/abc',
    secret: null,
    message: 'text',
  },
  dingtalk: {
    name: 'ding',
    kind: 'dingtalk',
    url: 'https://oapi.dingtalk.com/robot/send?access_token=tok',
    secret: 'this is secret',
  },
  wecom: { name: 'wecom', kind: 'wecom', url: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k-1' },
} satisfies Record<string, NotificationTarget>;

const bodyOf = (target: NotificationTarget, message = MESSAGE) =>
  JSON.parse(buildRequest(target, message, CONTEXT).body) as Record<string, unknown>;

describe('vendor signatures (values from each vendor’s own sample code)', () => {
  // Computed with the Python samples in the Feishu custom-bot guide and DingTalk's security settings page.
  it.each([
    ['1599360473', 'demo', 'l1N0gAcBjdwBvGm1xMjOF0XSyaLRpR7tuO5dHfhAYc8='],
    ['1700000000', '飞书密钥-secret', 't+N3ffgST8YOBHIijRC1DaVsTNvk0uGG55RLxVhEEbY='],
  ])('Feishu: timestamp %s, secret %s', (timestamp, secret, sign) => {
    expect(feishuSignature(timestamp, secret)).toBe(sign);
  });

  it.each([
    ['1577262236757', 'this is secret', 'hmPWwU+7lVdm3ZZz0r9tSfx0L4Q26jWOZr9+Gs6EZQM='],
    [
      '1700000000000',
      'SEC000000000000000000000000000000000000000000000000000000000000',
      '7P/8fhpCVrcCiQPL2iQD78euxebBpOUyg/zGYvWNnDc=',
    ],
  ])('DingTalk: timestamp %s, secret %s', (timestamp, secret, sign) => {
    expect(dingtalkSignature(timestamp, secret)).toBe(sign);
  });

  it('the generic webhook signs `<timestamp>.<body>` with HMAC-SHA256 (hex)', () => {
    expect(webhookSignature('s3cret', '1700000000', '{"a":1}')).toBe(
      '1698a50bc74d1ff1db85c4e0a5297c2ad9fdba245d5737cdb789e4cc6e098940',
    );
  });
});

describe('payloads in each vendor’s documented format', () => {
  it('generic webhook: the run, an Idempotency-Key and a signature over the exact body', () => {
    const request = buildRequest(TARGETS.webhook, MESSAGE, CONTEXT);
    expect(request.url).toBe('https://hooks.example.com/in');
    expect(request.headers['idempotency-key']).toBe('key-1');
    expect(request.headers['x-superbiz-timestamp']).toBe('1700000000');
    const expected = createHmac('sha256', 's3cret').update(`1700000000.${request.body}`).digest('hex');
    expect(request.headers['x-superbiz-signature']).toBe(`sha256=${expected}`);
    expect(JSON.parse(request.body)).toEqual({
      version: 1,
      run_id: 'run-1',
      session_id: 'session-1',
      trigger: 'alert',
      outcome: 'SUCCESS',
      released: true,
      title: MESSAGE.title,
      conclusion: MESSAGE.text,
      text: MESSAGE.text,
      reason: null,
      alert_labels: MESSAGE.alertLabels,
      run_url: MESSAGE.runUrl,
    });
  });

  it('generic webhook: a fixed text is sent as text, never as a conclusion', () => {
    const body = bodyOf(TARGETS.webhook, { ...MESSAGE, released: false, outcome: 'FALLBACK', text: 'fixed' });
    expect(body).toMatchObject({ conclusion: null, text: 'fixed', released: false });
  });

  it('Slack: text plus header/section/context blocks; model text escaped, the run the only link', () => {
    const body = bodyOf(TARGETS.slack);
    const blocks = body.blocks as {
      type: string;
      text?: { type: string; text: string };
      elements?: { text: string }[];
    }[];
    expect(blocks.map((block) => block.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(blocks[0].text).toEqual({ type: 'plain_text', text: MESSAGE.title });
    expect(blocks[1].text?.type).toBe('mrkdwn');
    expect(blocks[1].text?.text).toContain('&lt;@all&gt;');
    expect(blocks[1].text?.text).not.toContain('<');
    expect(blocks[2].text?.text).toBe('alertname=PaymentTimeouts\nseverity=critical');
    expect(blocks[3].elements?.[0].text).toBe(`<${MESSAGE.runUrl}|Open the run> · run run-1`);
    expect(typeof body.text).toBe('string');
  });

  it('Slack: a section stays within 3,000 characters even when escaping lengthens it', () => {
    const body = bodyOf(TARGETS.slack, { ...MESSAGE, text: '<'.repeat(10_000) });
    const section = (body.blocks as { text?: { text: string } }[])[1].text?.text ?? '';
    expect(section.length).toBeLessThanOrEqual(SLACK_SECTION_MAX);
    expect(section.endsWith('…')).toBe(true);
  });

  it('Feishu card: signed (timestamp in seconds), plain_text elements and a button to the run', () => {
    const body = bodyOf(TARGETS.feishuCard);
    expect(body.timestamp).toBe('1700000000');
    expect(body.sign).toBe(feishuSignature('1700000000', 'demo'));
    expect(body.msg_type).toBe('interactive');
    const card = body.card as { header: { title: unknown }; elements: Record<string, unknown>[] };
    expect(card.header.title).toEqual({ tag: 'plain_text', content: MESSAGE.title });
    expect(card.elements[0]).toEqual({ tag: 'div', text: { tag: 'plain_text', content: MESSAGE.text } });
    expect(JSON.stringify(card.elements[2])).toContain(MESSAGE.runUrl);
  });

  it('Feishu text: unsigned without a secret, mention syntax made inert', () => {
    const body = bodyOf(TARGETS.feishuText, { ...MESSAGE, text: 'see <at user_id="all">x</at>' });
    expect(body).not.toHaveProperty('sign');
    expect(body.msg_type).toBe('text');
    const text = (body.content as { text: string }).text;
    expect(text).not.toContain('<at');
    expect(text).toContain('＜at user_id="all"＞');
  });

  it('Feishu: the body stays under the documented 20 KB for a huge CJK text', () => {
    const request = buildRequest(TARGETS.feishuCard, { ...MESSAGE, text: '池'.repeat(50_000) }, CONTEXT);
    expect(utf8Bytes(request.body)).toBeLessThan(20 * 1024);
  });

  it('DingTalk: markdown, signed as timestamp (ms) and urlencoded sign query parameters', () => {
    const request = buildRequest(TARGETS.dingtalk, MESSAGE, CONTEXT);
    const url = new URL(request.url);
    expect(url.searchParams.get('access_token')).toBe('tok');
    expect(url.searchParams.get('timestamp')).toBe('1700000000123');
    expect(url.searchParams.get('sign')).toBe(dingtalkSignature('1700000000123', 'this is secret'));
    // Percent-encoded on the wire (base64's +, / and = are not left bare).
    expect(request.url).not.toMatch(/sign=[^&]*[+/=]/);
    const body = JSON.parse(request.body) as { msgtype: string; markdown: { title: string; text: string } };
    expect(body.msgtype).toBe('markdown');
    expect(body.markdown.title).toBe(MESSAGE.title);
    expect(body.markdown.text).toContain(`[Open the run](${MESSAGE.runUrl})`);
    // Model text can neither link nor @-mention.
    expect(body.markdown.text).not.toContain('[x](');
    expect(body.markdown.text).not.toContain('@138');
  });

  it('WeCom: markdown content within 4,096 UTF-8 bytes, the run link kept', () => {
    for (const text of [MESSAGE.text, '池'.repeat(5000), '😀'.repeat(3000), 'a'.repeat(10_000)]) {
      const body = bodyOf(TARGETS.wecom, { ...MESSAGE, text }) as {
        msgtype: string;
        markdown: { content: string };
      };
      expect(body.msgtype).toBe('markdown');
      expect(utf8Bytes(body.markdown.content)).toBeLessThanOrEqual(WECOM_CONTENT_MAX_BYTES);
      expect(body.markdown.content).toContain(`[Open the run](${MESSAGE.runUrl})`);
      expect(body.markdown.content).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
  });
});

describe('answers classified by the body, not only the status', () => {
  it.each([
    ['Feishu success', classifyFeishuBody('{"code":0,"msg":"success","data":{}}'), { delivered: true }],
    [
      'Feishu legacy success',
      classifyFeishuBody('{"StatusCode":0,"StatusMessage":"success"}'),
      { delivered: true },
    ],
    [
      'Feishu bad signature',
      classifyFeishuBody('{"code":19021,"msg":"sign match fail or timestamp is not within one hour"}'),
      { delivered: false, failure: 'VENDOR_ERROR', vendorCode: 19021 },
    ],
    [
      'Feishu rate limit',
      classifyFeishuBody('{"code":11232,"msg":"frequency limited"}'),
      { delivered: false, failure: 'RATE_LIMITED', vendorCode: 11232 },
    ],
    ['DingTalk ok', classifyDingTalkBody('{"errcode":0,"errmsg":"ok"}'), { delivered: true }],
    [
      'DingTalk bad sign',
      classifyDingTalkBody('{"errcode":310000,"errmsg":"sign not match"}'),
      { delivered: false, failure: 'VENDOR_ERROR', vendorCode: 310000 },
    ],
    [
      'DingTalk too fast',
      classifyDingTalkBody('{"errcode":130101,"errmsg":"send too fast"}'),
      { delivered: false, failure: 'RATE_LIMITED', vendorCode: 130101 },
    ],
    ['WeCom ok', classifyWeComBody('{"errcode":0,"errmsg":"ok"}'), { delivered: true }],
    [
      'WeCom invalid key',
      classifyWeComBody('{"errcode":93000,"errmsg":"invalid webhook url"}'),
      { delivered: false, failure: 'VENDOR_ERROR', vendorCode: 93000 },
    ],
    [
      'WeCom frequency',
      classifyWeComBody('{"errcode":45009,"errmsg":"api freq out of limit"}'),
      { delivered: false, failure: 'RATE_LIMITED', vendorCode: 45009 },
    ],
    [
      'WeCom HTML page',
      classifyWeComBody('<html>proxy</html>'),
      { delivered: false, failure: 'BAD_RESPONSE', vendorCode: null },
    ],
    [
      'WeCom no code',
      classifyWeComBody('{"ok":true}'),
      { delivered: false, failure: 'BAD_RESPONSE', vendorCode: null },
    ],
    ['Slack ok', classifySlackBody('ok'), { delivered: true }],
    [
      'Slack other',
      classifySlackBody('no_text'),
      { delivered: false, failure: 'BAD_RESPONSE', vendorCode: null },
    ],
    ['generic webhook', classifyBody(TARGETS.webhook, 'anything'), { delivered: true }],
  ])('%s', (_name, verdict, expected) => {
    expect(verdict).toEqual(expected);
  });
});
