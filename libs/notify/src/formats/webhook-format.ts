import { createHmac } from 'node:crypto';
import type { NotificationMessage } from '../notification-message';
import type { NotificationTarget } from '../notification-targets';
import { boundText } from '../text-bounds';
import { BodyVerdict, JSON_HEADERS, OutboundRequest, RequestContext } from './outbound-request';

type WebhookTarget = Extract<NotificationTarget, { kind: 'webhook' }>;

/** The generic webhook's text bound; the run row's conclusion column is bounded below this already. */
export const WEBHOOK_TEXT_MAX_CODE_POINTS = 20_000;

/**
 * The generic JSON webhook (this service's own format, docs/notifications.md): one JSON object per run,
 * the delivery's `Idempotency-Key` header (the same on every attempt, so a receiver can drop a repeat),
 * and with a secret an HMAC-SHA256 signature of `<timestamp>.<body>` (hex) a receiver can check.
 */
export function webhookRequest(
  target: WebhookTarget,
  message: NotificationMessage,
  context: RequestContext,
): OutboundRequest {
  const body = JSON.stringify({
    version: 1,
    run_id: message.runId,
    session_id: message.sessionId,
    trigger: message.trigger,
    outcome: message.outcome,
    released: message.released,
    title: message.title,
    // The released conclusion, or null: `text` is what a person reads either way.
    conclusion: message.released ? boundText(message.text, WEBHOOK_TEXT_MAX_CODE_POINTS) : null,
    text: boundText(message.text, WEBHOOK_TEXT_MAX_CODE_POINTS),
    reason: message.reason,
    alert_labels: message.alertLabels,
    run_url: message.runUrl,
  });
  const headers: Record<string, string> = { ...JSON_HEADERS, 'idempotency-key': context.idempotencyKey };
  if (target.secret !== null) {
    const timestamp = String(Math.floor(context.nowMs / 1000));
    headers['x-superbiz-timestamp'] = timestamp;
    headers['x-superbiz-signature'] = `sha256=${webhookSignature(target.secret, timestamp, body)}`;
  }
  return { url: target.url, headers, body };
}

export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** Any 2xx is delivered: the generic receiver's body is not ours to interpret. */
export function classifyWebhookBody(): BodyVerdict {
  return { delivered: true };
}
