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

type DingTalkTarget = Extract<NotificationTarget, { kind: 'dingtalk' }>;

/**
 * DingTalk custom robots (https://open.dingtalk.com/document/robots/custom-robot-access): msgtype
 * `markdown` with `title` (the conversation list's preview) and `text`. Signing
 * (https://open.dingtalk.com/document/robots/customize-robot-security-settings): `timestamp` (ms) and
 * `sign` = urlencode(base64(HMAC-SHA256(key = secret, message = `timestamp\nsecret`))) as query
 * parameters. DingTalk states no size for markdown text there; it is bounded to 5,000 code points and
 * 15,000 UTF-8 bytes, well under the message sizes DingTalk accepts.
 */
export const DINGTALK_TEXT_MAX_CODE_POINTS = 5_000;
export const DINGTALK_TEXT_MAX_BYTES = 15_000;
export const DINGTALK_LABELS_MAX_BYTES = 2_000;
/** 130101: sending too fast (20 messages a minute per robot): retried. */
export const DINGTALK_RATE_LIMIT_CODES = [130101] as const;

export function dingtalkSignature(timestamp: string, secret: string): string {
  return createHmac('sha256', secret).update(`${timestamp}\n${secret}`).digest('base64');
}

export function dingtalkRequest(
  target: DingTalkTarget,
  message: NotificationMessage,
  context: RequestContext,
): OutboundRequest {
  const url = new URL(target.url);
  if (target.secret !== null) {
    const timestamp = String(context.nowMs);
    url.searchParams.set('timestamp', timestamp);
    // URLSearchParams percent-encodes the base64 (+, /, =): the documented urlencode.
    url.searchParams.set('sign', dingtalkSignature(timestamp, target.secret));
  }
  const labels =
    message.alertLabels && Object.keys(message.alertLabels).length > 0
      ? boundText(
          inertChatText(labelLines(message.alertLabels)),
          DINGTALK_LABELS_MAX_BYTES,
          DINGTALK_LABELS_MAX_BYTES,
        )
      : null;
  const text = [
    `#### ${message.title}`,
    // Made inert before the cut, so the 3-byte look-alikes count against the bound.
    boundText(inertChatText(message.text), DINGTALK_TEXT_MAX_CODE_POINTS, DINGTALK_TEXT_MAX_BYTES),
    labels ? labels.replace(/\n/g, '  \n') : null,
    `[Open the run](${message.runUrl})`,
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    url: url.toString(),
    headers: { ...JSON_HEADERS },
    body: JSON.stringify({ msgtype: 'markdown', markdown: { title: message.title, text } }),
  };
}

/** DingTalk answers 200 with `{"errcode":0,"errmsg":"ok"}`; any other errcode failed. */
export function classifyDingTalkBody(text: string): BodyVerdict {
  return classifyCodeBody(text, (body) => body.errcode, DINGTALK_RATE_LIMIT_CODES);
}
