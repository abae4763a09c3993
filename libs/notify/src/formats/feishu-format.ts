import { createHmac } from 'node:crypto';
import type { NotificationMessage } from '../notification-message';
import type { NotificationTarget } from '../notification-targets';
import { boundText, inertChatText } from '../text-bounds';
import { labelLines } from './slack-format';
import {
  BodyVerdict,
  classifyCodeBody,
  JSON_HEADERS,
  OutboundRequest,
  RequestContext,
} from './outbound-request';

type FeishuTarget = Extract<NotificationTarget, { kind: 'feishu' }>;

/**
 * Feishu/Lark custom bots (https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot): msg_type
 * `text` (content.text) or `interactive` (a card whose texts are `plain_text`, so nothing in them is
 * markup); the request body may be at most 20 KB, so the text is bounded to 12,000 UTF-8 bytes and the
 * labels to 2,000 (cut on code points). With a signing secret the body carries `timestamp` (seconds) and
 * `sign` = base64(HMAC-SHA256(key = `timestamp\nsecret`, message = empty)).
 */
export const FEISHU_TEXT_MAX_BYTES = 12_000;
export const FEISHU_LABELS_MAX_BYTES = 2_000;
/** Feishu's answer code for a bot sending too often (frequency limited): retried. */
export const FEISHU_RATE_LIMIT_CODES = [11232] as const;

export function feishuSignature(timestamp: string, secret: string): string {
  return createHmac('sha256', `${timestamp}\n${secret}`).update('').digest('base64');
}

export function feishuRequest(
  target: FeishuTarget,
  message: NotificationMessage,
  context: RequestContext,
): OutboundRequest {
  // Text messages parse `<at user_id=…>`: there the model's and the alert's text is made inert (before the
  // cut, so the 3-byte look-alikes count); a card's plain_text is never markup.
  const shown = target.message === 'text' ? inertChatText : (value: string) => value;
  const text = boundText(shown(message.text), FEISHU_TEXT_MAX_BYTES, FEISHU_TEXT_MAX_BYTES);
  const labels =
    message.alertLabels && Object.keys(message.alertLabels).length > 0
      ? boundText(shown(labelLines(message.alertLabels)), FEISHU_LABELS_MAX_BYTES, FEISHU_LABELS_MAX_BYTES)
      : null;
  const signing: Record<string, string> = {};
  if (target.secret !== null) {
    const timestamp = String(Math.floor(context.nowMs / 1000));
    signing.timestamp = timestamp;
    signing.sign = feishuSignature(timestamp, target.secret);
  }
  const payload =
    target.message === 'text'
      ? {
          ...signing,
          msg_type: 'text',
          content: { text: [message.title, text, labels, message.runUrl].filter(Boolean).join('\n\n') },
        }
      : {
          ...signing,
          msg_type: 'interactive',
          card: {
            header: {
              title: { tag: 'plain_text', content: message.title },
              template: message.outcome === 'SUCCESS' ? 'green' : 'orange',
            },
            elements: [
              { tag: 'div', text: { tag: 'plain_text', content: text } },
              ...(labels ? [{ tag: 'div', text: { tag: 'plain_text', content: labels } }] : []),
              {
                tag: 'action',
                actions: [
                  {
                    tag: 'button',
                    text: { tag: 'plain_text', content: 'Open the run' },
                    type: 'primary',
                    url: message.runUrl,
                  },
                ],
              },
            ],
          },
        };
  return { url: target.url, headers: { ...JSON_HEADERS }, body: JSON.stringify(payload) };
}

/** Feishu answers 200 with `{"code":0,"msg":"success"}` (older bots: `StatusCode`); any other code failed. */
export function classifyFeishuBody(text: string): BodyVerdict {
  return classifyCodeBody(text, (body) => body.code ?? body.StatusCode, FEISHU_RATE_LIMIT_CODES);
}
