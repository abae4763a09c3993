import type { NotificationMessage } from '../notification-message';
import type { NotificationTarget } from '../notification-targets';
import { boundText, inertChatText, utf8Bytes } from '../text-bounds';
import { labelLines } from './slack-format';
import { BodyVerdict, classifyCodeBody, JSON_HEADERS, OutboundRequest } from './outbound-request';

type WeComTarget = Extract<NotificationTarget, { kind: 'wecom' }>;

/**
 * WeCom group robots (https://developer.work.weixin.qq.com/document/path/91770): msgtype `markdown`,
 * `markdown.content` at most 4,096 UTF-8 bytes; the robot's key is the URL's `key` query parameter.
 * The title, link and labels are laid out first and the text gets the bytes left (cut on code points).
 */
export const WECOM_CONTENT_MAX_BYTES = 4096;
export const WECOM_LABELS_MAX_BYTES = 1_000;
/** 45009: the robot's API frequency is over its limit (20 messages a minute): retried. */
export const WECOM_RATE_LIMIT_CODES = [45009] as const;

export function wecomRequest(target: WeComTarget, message: NotificationMessage): OutboundRequest {
  const labels =
    message.alertLabels && Object.keys(message.alertLabels).length > 0
      ? boundText(
          inertChatText(labelLines(message.alertLabels)),
          WECOM_LABELS_MAX_BYTES,
          WECOM_LABELS_MAX_BYTES,
        )
      : null;
  const head = `### ${message.title}`;
  const tail = [labels ? `> ${labels.replace(/\n/g, '\n> ')}` : null, `[Open the run](${message.runUrl})`]
    .filter(Boolean)
    .join('\n\n');
  const separators = utf8Bytes('\n\n') * 2;
  const budget = WECOM_CONTENT_MAX_BYTES - utf8Bytes(head) - utf8Bytes(tail) - separators;
  // Made inert first, then cut: the fullwidth look-alikes are 3 bytes each and must fit the budget too.
  const text = boundText(inertChatText(message.text), budget, budget);
  return {
    url: target.url,
    headers: { ...JSON_HEADERS },
    body: JSON.stringify({ msgtype: 'markdown', markdown: { content: [head, text, tail].join('\n\n') } }),
  };
}

/** WeCom answers 200 with `{"errcode":0,"errmsg":"ok"}`; any other errcode failed. */
export function classifyWeComBody(text: string): BodyVerdict {
  return classifyCodeBody(text, (body) => body.errcode, WECOM_RATE_LIMIT_CODES);
}
