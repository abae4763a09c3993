export const REDACTED = '[REDACTED]';

/**
 * Field names whose values are never shown to the agent, as sequences of whole words: a name is split
 * into words at snake_case, kebab-case, dots and camelCase boundaries, so `auth_token` and `userPhone`
 * are sensitive while `authorized_at`, `author_note`, `hotel_id` and `telemetry_ms` are not.
 */
const SENSITIVE_WORDS: readonly (readonly string[])[] = [
  ['password'],
  ['passwd'],
  ['pwd'],
  ['passcode'],
  ['secret'],
  ['token'],
  ['credential'],
  ['credentials'],
  ['cookie'],
  ['authorization'],
  ['auth'],
  ['phone'],
  ['telephone'],
  ['tel'],
  ['mobile'],
  ['email'],
  ['e', 'mail'],
  ['ssn'],
  ['passport'],
  ['cvv'],
  ['cvc'],
  ['iban'],
  ['otp'],
  ['apikey'],
  ['api', 'key'],
  ['access', 'key'],
  ['accesskey'],
  ['private', 'key'],
  ['privatekey'],
  ['secret', 'key'],
  ['session', 'id'],
  ['sessionid'],
  ['id', 'card'],
  ['idcard'],
  ['id', 'number'],
  ['id', 'no'],
  ['national', 'id'],
  ['card', 'no'],
  ['card', 'num'],
  ['card', 'number'],
  ['cardno'],
  ['cardnumber'],
  ['pan'],
  ['bank', 'account'],
  ['bankaccount'],
  ['account', 'number'],
];

/** A field name as lowercase words: `userPhone_no` → user, phone, no; `APIKey` → api, key. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

export function isSensitiveField(name: string): boolean {
  const words = nameWords(name);
  return SENSITIVE_WORDS.some((sequence) =>
    words.some((_word, start) => sequence.every((part, offset) => words[start + offset] === part)),
  );
}

/** The Luhn checksum every payment card number carries: a digit string of another kind rarely passes. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** The ISO 7064 MOD 11-2 check character of an 18-character PRC resident identity number. */
export function residentIdValid(id: string): boolean {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = weights.reduce((total, weight, index) => total + weight * Number(id[index]), 0);
  return '10X98765432'[sum % 11] === id[17].toUpperCase();
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
];

/**
 * Numbers redacted by what they are, not by their shape: a stand-alone run of digits (not part of an
 * identifier such as `ORD-20261205-004217`, nor next to letters) that is a resident identity number with a
 * valid check character, a mainland mobile number, or a card number whose Luhn checksum holds, whatever
 * separators (spaces, dashes, dots) it is written with.
 */
const NUMBERS: [RegExp, (match: string) => string][] = [
  [/(?<![\w-])\d{17}[\dXx](?![\w-])/g, (id) => (residentIdValid(id) ? '[REDACTED_ID]' : id)],
  [/(?<![\w+.-])(\+?\d{1,3}[ -]?)?1[3-9]\d(?:[ -]?\d){8}(?![\w-])/g, () => '[REDACTED_PHONE]'],
  [
    /(?<![\w.-])\d(?:[ .-]?\d){12,18}(?![\w-])/g,
    (number) => (luhnValid(number.replace(/[ .-]/g, '')) ? '[REDACTED_NUMBER]' : number),
  ],
];

/** Redacts credentials and personal data from free text. Deterministic; order matters (specific first). */
export function redactText(text: string): string {
  const patterned = PATTERNS.reduce(
    (value, [pattern, replacement]) => value.replace(pattern, replacement),
    text,
  );
  return NUMBERS.reduce((value, [pattern, replace]) => value.replace(pattern, replace), patterned);
}

/** Cuts text to `max` characters, marking the cut. */
export function clip(text: string, max: number): { text: string; clipped: boolean } {
  return text.length <= max
    ? { text, clipped: false }
    : { text: `${text.slice(0, Math.max(0, max - 1))}…`, clipped: true };
}
