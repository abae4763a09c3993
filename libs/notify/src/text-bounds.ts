import { cutText } from '@app/trace';

const encoder = new TextEncoder();

export const utf8Bytes = (text: string): number => encoder.encode(text).length;

/**
 * At most `maxCodePoints` code points and `maxBytes` UTF-8 bytes of `text`, cut on a code point (never
 * inside a surrogate pair), with `…` appended when something was cut (the marker's 3 bytes are counted).
 * Chat vendors count their limits in UTF-8 bytes (WeCom, Feishu) or characters (Slack): both bounds hold.
 */
export function boundText(text: string, maxCodePoints: number, maxBytes = Infinity): string {
  const byPoints = cutText(text, maxCodePoints, '…');
  if (utf8Bytes(byPoints) <= maxBytes) return byPoints;
  const budget = Math.max(0, maxBytes - utf8Bytes('…'));
  let bytes = 0;
  let out = '';
  for (const point of byPoints) {
    const size = utf8Bytes(point);
    if (bytes + size > budget) break;
    bytes += size;
    out += point;
  }
  return `${out}…`;
}

/**
 * Untrusted or model-written text made inert in a chat message: the characters that open a vendor's
 * mention, link or tag syntax (`<@all>`, `<!channel>`, `<at id=all>`, `[x](url)`, `@138…`) are replaced
 * by their fullwidth look-alikes, so the text reads the same and can ping nobody or link anywhere. The
 * only link a message carries is the one built by code to the run in the UI.
 */
export function inertChatText(text: string): string {
  return text.replace(/[<>[\]@]/g, (char) => FULLWIDTH[char] ?? char);
}

const FULLWIDTH: Record<string, string> = {
  '<': '\uFF1C',
  '>': '\uFF1E',
  '[': '\uFF3B',
  ']': '\uFF3D',
  '@': '\uFF20',
};
