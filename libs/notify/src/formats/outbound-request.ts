import type { NotificationFailure } from '@app/contracts';

/** One HTTP POST to a target, fully built (URL with its credentials, headers, JSON body). */
export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What a vendor's 2xx answer body says. */
export type BodyVerdict =
  | { delivered: true }
  | {
      delivered: false;
      /** RATE_LIMITED is retried; VENDOR_ERROR and BAD_RESPONSE are final. */
      failure: Extract<NotificationFailure, 'RATE_LIMITED' | 'VENDOR_ERROR' | 'BAD_RESPONSE'>;
      vendorCode: number | null;
    };

/** What each request carries besides the message: the clock (signatures) and the delivery's key. */
export interface RequestContext {
  nowMs: number;
  idempotencyKey: string;
}

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;

/**
 * The vendors that answer HTTP 200 with an error code in a JSON body: 0 is success, a rate-limit code is
 * retried, any other code (or a body that is not that JSON) is a final failure.
 */
export function classifyCodeBody(
  text: string,
  readCode: (body: Record<string, unknown>) => unknown,
  rateLimitCodes: readonly number[],
): BodyVerdict {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { delivered: false, failure: 'BAD_RESPONSE', vendorCode: null };
  }
  const code =
    typeof body === 'object' && body !== null ? readCode(body as Record<string, unknown>) : undefined;
  if (typeof code !== 'number' || !Number.isSafeInteger(code)) {
    return { delivered: false, failure: 'BAD_RESPONSE', vendorCode: null };
  }
  if (code === 0) return { delivered: true };
  return {
    delivered: false,
    failure: rateLimitCodes.includes(code) ? 'RATE_LIMITED' : 'VENDOR_ERROR',
    vendorCode: code,
  };
}
