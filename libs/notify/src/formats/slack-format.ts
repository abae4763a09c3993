import type { NotificationMessage } from '../notification-message';
import type { NotificationTarget } from '../notification-targets';
import { boundText } from '../text-bounds';
import { BodyVerdict, JSON_HEADERS, OutboundRequest } from './outbound-request';

type SlackTarget = Extract<NotificationTarget, { kind: 'slack' }>;

/**
 * Slack incoming webhooks (https://api.slack.com/messaging/webhooks): a JSON body with `text` (the
 * notification's plain fallback) and Block Kit `blocks`. Limits from the Block Kit reference
 * (https://api.slack.com/reference/block-kit/blocks): a header's plain_text at most 150 characters, a
 * section's text at most 3,000; cut by code points (a code point is never split) with the `…` marker
 * inside the limit.
 */
export const SLACK_HEADER_MAX = 150;
export const SLACK_SECTION_MAX = 3000;
/** The top-level `text` is the push notification's preview: short on purpose (Slack allows 40,000). */
export const SLACK_PREVIEW_MAX = 300;

/** Slack's documented mrkdwn escaping (&, <, >): model or alert text can then neither link nor mention. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escaped and bounded: cut first, then escaped, re-cut so an entity never pushes it over the limit. */
function section(text: string): string {
  let bound = SLACK_SECTION_MAX - 1;
  let escaped = slackEscape(boundText(text, bound));
  while (escaped.length > SLACK_SECTION_MAX) {
    bound -= escaped.length - SLACK_SECTION_MAX;
    escaped = slackEscape(boundText(text, bound));
  }
  return escaped;
}

export function slackRequest(target: SlackTarget, message: NotificationMessage): OutboundRequest {
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: boundText(message.title, SLACK_HEADER_MAX - 1) } },
    { type: 'section', text: { type: 'mrkdwn', text: section(message.text) } },
  ];
  if (message.alertLabels && Object.keys(message.alertLabels).length > 0) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: section(labelLines(message.alertLabels)) },
    });
  }
  const facts = [`run ${message.runId}`, message.reason ? `reason ${message.reason}` : null].filter(Boolean);
  blocks.push({
    type: 'context',
    // The only link in the message, built by code: the run in the UI.
    elements: [
      { type: 'mrkdwn', text: `<${message.runUrl}|Open the run> · ${slackEscape(facts.join(' · '))}` },
    ],
  });
  return {
    url: target.url,
    headers: { ...JSON_HEADERS },
    body: JSON.stringify({
      text: slackEscape(boundText(`${message.title}: ${message.text}`, SLACK_PREVIEW_MAX)),
      blocks,
    }),
  };
}

export function labelLines(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
}

/** Slack answers 200 with the body `ok`; its errors come as 4xx with a word (`invalid_payload`, …). */
export function classifySlackBody(text: string): BodyVerdict {
  return text.trim() === 'ok'
    ? { delivered: true }
    : { delivered: false, failure: 'BAD_RESPONSE', vendorCode: null };
}
