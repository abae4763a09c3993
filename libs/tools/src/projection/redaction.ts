export const REDACTED = '[REDACTED]';

/** Columns or fields whose values are never shown to the agent, by name. */
const SENSITIVE_FIELD =
  /(pass(word)?|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth|cookie|session[_-]?id|phone|mobile|tel|e-?mail|id[_-]?card|id[_-]?number|national[_-]?id|ssn|passport|card[_-]?(no|num|number)|cvv|iban|bank[_-]?account)/i;

export function isSensitiveField(name: string): boolean {
  return SENSITIVE_FIELD.test(name);
}

/** Value patterns redacted wherever they appear in text (log lines, cells, excerpts). */
const PATTERNS: [RegExp, string][] = [
  [/\b(authorization|proxy-authorization)\s*[:=]\s*(bearer|basic|token)?\s*[^\s,;"']+/gi, '$1: [REDACTED]'],
  [/\bbearer\s+[A-Za-z0-9._~+/-]+=*/gi, 'Bearer [REDACTED]'],
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, '[REDACTED_JWT]'],
  [
    /\b(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)\b("?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&]+)/gi,
    '$1$2[REDACTED]',
  ],
  [/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, '[REDACTED_KEY]'],
  [/\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g, '[REDACTED_EMAIL]'],
  [/\b\d{17}[\dXx]\b/g, '[REDACTED_ID]'],
  [/(?<![\d-])(\+?\d{1,3}[ -]?)?1[3-9]\d{9}(?!\d)/g, '[REDACTED_PHONE]'],
  [/\b\d(?:[ -]?\d){12,18}\b/g, '[REDACTED_NUMBER]'],
];

/** Redacts credentials and personal data from free text. Deterministic; order matters (specific first). */
export function redactText(text: string): string {
  return PATTERNS.reduce((value, [pattern, replacement]) => value.replace(pattern, replacement), text);
}

/** Cuts text to `max` characters, marking the cut. */
export function clip(text: string, max: number): { text: string; clipped: boolean } {
  return text.length <= max
    ? { text, clipped: false }
    : { text: `${text.slice(0, Math.max(0, max - 1))}…`, clipped: true };
}
