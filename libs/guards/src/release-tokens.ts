import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { LinkifyIt } from 'linkify-it';
import { parse as parseDomain } from 'tldts';
import { displayedReading } from './release-normalise';

/**
 * The tokens of a canonical text (release-normalise.ts) that could send a reader somewhere or reach
 * someone: links, hosts, IP addresses, e-mail addresses, phone numbers, chat handles and file paths,
 * each in one canonical spelling so that the provenance check compares exact tokens, never substrings
 * (docs/release-gate.md "Sensitive tokens"). Hosts and addresses are read as a browser reads them
 * (WHATWG URL and IDNA in Node's `URL` and `domainToASCII`), public suffixes come from the public suffix
 * list (`tldts`), and links are found as a Markdown renderer finds them (`linkify-it`, fuzzy links on).
 */
export const SENSITIVE_KINDS = ['LINK', 'HOST', 'IP', 'EMAIL', 'PHONE', 'CHAT_HANDLE', 'FILE_PATH'] as const;
export type SensitiveKind = (typeof SENSITIVE_KINDS)[number];

export interface SensitiveToken {
  kind: SensitiveKind;
  /** The canonical spelling: a WHATWG href, an ASCII host, a dotted IPv4, digits of a phone number. */
  value: string;
  /** For LINK, EMAIL and IP tokens: the host they lead to (ASCII, or a dotted IPv4 / bracketed IPv6). */
  host?: string;
  /** IP tokens: written with a path, or in a non-canonical spelling (hex, octal, one number, short form). */
  endpoint?: boolean;
}

const linkify = new LinkifyIt({ fuzzyLink: true, fuzzyEmail: true, fuzzyIP: true });

/** The reserved names (RFC 2606, RFC 6761) stand for real domains wherever they appear. */
const RESERVED_SUFFIXES = new Set(['test', 'example', 'invalid', 'localhost', 'onion']);

const TRAILING = /[.,;:!?'")\]}>，。；：、！？）】》]+$/u;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/u;

/** A host as the WHATWG URL parser reads it, or null when it is no valid host. */
export function browserHost(raw: string): string | null {
  try {
    const host = new URL(`http://${raw}/`).hostname;
    return host.replace(/\.$/u, '') || null;
  } catch {
    return null;
  }
}

/** Whether an ASCII host ends in a suffix of the public suffix list (or a reserved test name). */
export function hasPublicSuffix(host: string): boolean {
  if (IPV4.test(host) || host.startsWith('[')) return false;
  const labels = host.split('.');
  if (labels.length < 2 || labels.some((label) => label.length === 0)) return false;
  if (RESERVED_SUFFIXES.has(labels[labels.length - 1])) return true;
  const parsed = parseDomain(host, { allowPrivateDomains: true });
  return parsed.isIcann === true || parsed.isPrivate === true;
}

/** A WHATWG href for a link, or the lower-cased text when it does not parse (it is still a link). */
function canonicalLink(raw: string): { value: string; host?: string } {
  try {
    const url = new URL(/^\/\//u.test(raw) ? `http:${raw}` : raw);
    return { value: url.href, host: url.hostname.replace(/\.$/u, '') || undefined };
  } catch {
    return { value: raw.toLowerCase() };
  }
}

const SCHEME_LINK =
  /(?<![\w.+-])[a-z][a-z0-9+.-]{1,31}:(?:\/\/?|\\\\)[^\s<>"'`\])，。；、]+|(?<![\w.+-])(?:mailto|tel|sms|callto|javascript|vbscript|data|file|news|magnet|xmpp|skype|weixin|tg|whatsapp|slack|msteams|ms-[a-z-]+|intent):[^\s<>"'`\])，。；、]+|(?<![\w:/])\/\/[^\s<>"'`\])，。；、/]+[^\s<>"'`\])，。；、]*|\bwww\.[^\s<>"'`\])，。；、]+/giu;
/**
 * The target is matched atomically (`(?=(…))\1`: no backtracking into it) and what follows it is bounded,
 * so a text of many unclosed `[a](` costs linear time, not a second per few kilobytes.
 */
const MARKDOWN_LINK =
  /\[[^\]\n]{0,200}\]\(\s*<?(?=([^)\s>]{1,2000}))\1>?[^)]{0,2000}\)|\[[^\]\n]{0,200}\]:\s*(?=(\S{1,2000}))\2/gu;
/** A run of characters a host, address, port and path can be written with (after the canonical reading). */
const ADDRESS_RUN = /[\p{L}\p{N}\p{M}_~%+-]+(?:[.:][\p{L}\p{N}\p{M}_~%+-]+)*(?:\/[^\s<>"'`)\]，。；、]*)?/gu;
const EMAIL = /(?<![\p{L}\p{N}._%+'-])[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}\p{M}-]+(?:\.[\p{L}\p{N}\p{M}-]+)+/gu;
const PHONE =
  /\+\s?\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]?\d{2,4}){1,4}|(?<![\w.-])\(?\d{3,4}\)?[\s.-]\d{3,4}[\s.-]\d{3,5}(?![\w-]|\.\d)|(?<![\w-])\d{3,4}-\d{7,8}(?![\w-])|(?<!\d)1[3-9]\d{9}(?!\d)|(?<!\d)[48]00[\s.-]?\d{3}[\s.-]?\d{4}(?!\d)/gu;
/** `@name` (no address before it) and a handle after the name of a chat app or messenger. */
const CHAT_HANDLE =
  /(?<![\w.@/+-])@[\p{L}\p{N}_][\p{L}\p{N}_.-]{1,63}|\b(?:wechat|weixin|wx|qq|telegram|tg|whatsapp|discord|skype|viber|kakao(?:talk)?|icq|slack|dingtalk|lark|feishu)(?:\s*(?:id|account|handle|number|no\.?|group|channel))?\s*[:：=]\s*[^\s，。；、]+|(?:微信|微信号|企业微信|钉钉|飞书|电报|QQ号?|QQ群)\s*[:：]?\s*[\p{L}\p{N}_.@-]+/giu;
/** Absolute, home-relative and Windows paths with two segments, or one dot segment (`~/.ssh`, `/.env`). */
const FILE_PATH =
  /(?<![\w:/.~-])(?:~[\w.-]*|\.{1,2})?\/(?:[\w.@%+-]+\/)+[\w.@%+-]*|(?<![\w:/.~-])(?:~[\w.-]*|\.{1,2})?\/\.[\w.@%+-]+|(?<!\w)[a-z]:\\[^\s<>"'`]+|\\\\[\w.-]+\\[^\s<>"'`]+|%[a-z_]+%\\[^\s<>"'`]+|\$(?:HOME|USERPROFILE|APPDATA)\b[/\\][^\s<>"'`]*/giu;
/** An HTTP request line's path names a route on the service, not a file on a reader's disk. */
const ROUTE_BEFORE = /\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+$/u;
/** Paths under these prefixes are a web service's routes (`/api/orders/123/pay`), not files. */
const ROUTE_PREFIX = /^\/(?:api|v\d+|rest|rpc|graphql|actuator|health|metrics)(?:\/|$)/iu;

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/u;

/** An IPv6 address, bare or bracketed with a port or path; validated by `ipaddr.js`. */
const IPV6 =
  /(?<![\w:.])\[?((?:[0-9a-f]{0,4}:){2,7}(?:[0-9a-f]{0,4}|\d{1,3}(?:\.\d{1,3}){3}))\]?(?::\d{1,5})?(\/\S*)?(?![\w:])/giu;

const stripTrailing = (text: string) => text.replace(TRAILING, '');

/**
 * A link ends at a comma, stop or other closing mark followed by CJK text: NFKC reads a Chinese `，`
 * after a link as `,`, and the sentence that follows is not the link's path.
 */
const endOfLink = (text: string) =>
  text.replace(
    /[,.;:!?'")\]](?=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]).*$/su,
    '',
  );

/** A dotted IPv4 address written with every part in decimal, as a reader of a log would write one. */
const plainIpv4 = (text: string) => IPV4.test(text) && text.split('.').every((part) => !/^0\d/u.test(part));

/**
 * Whether a name WHATWG reads as IPv4 is written as an address rather than as a number: four parts in
 * any radix; two or three parts with a hex part or an octal one before the last (`0x7f.1`, `0177.1`),
 * or with a port; one
 * number of at least 2^24 or in hex, with a port or path (`3405803783:8443`). A lone number (an order
 * id, `0x80004005`), a decimal (`1.25`), a version (`1.2.3`), a clock time or a date is no address.
 */
function ipv4Spelling(name: string, withPort: boolean, withPath: boolean): boolean {
  const parts = name.split('.').filter((part) => part.length > 0);
  if (parts.length >= 4) return true;
  // A decimal with a unit after a slash (`0.5/s`) is a rate, not an address: two or three decimal parts count with a port.
  if (parts.length > 1)
    return (
      withPort ||
      parts.some((part) => /^0x/iu.test(part)) ||
      parts.slice(0, -1).some((part) => /^0\d/u.test(part))
    );
  return (withPort || withPath) && (/^0x/iu.test(name) || Number(name) >= 2 ** 24);
}

/** How an address run reads: a host with a public suffix, an IPv4 endpoint, or nothing sensitive. */
function addressToken(run: string): SensitiveToken | null {
  const text = stripTrailing(run);
  const match = /^([^/:]+)(:\d{1,5})?(\/.*)?$/u.exec(text);
  if (!match) return null;
  const [, name, port, path] = match;
  const host = browserHost(name);
  if (!host) return null;
  if (IPV4.test(host)) {
    if (!ipv4Spelling(name, Boolean(port), Boolean(path))) return null;
    const endpoint = Boolean(path) || !plainIpv4(name);
    // With a path, or a port on a public address, it is a link to that very port and path: a runbook's
    // `http://203.0.113.7:8080/status` does not vouch for `203.0.113.7:4444/payload.sh`. A private
    // address with a port stays an address (the incident's own machine, docs/release-gate.md).
    const publicAddress = !['private', 'loopback'].includes(ipaddr.parse(host).range());
    if (path || (port && publicAddress))
      return { kind: 'LINK', value: canonicalLink(`http://${text}`).value, host, endpoint };
    return { kind: 'IP', value: host, host, endpoint };
  }
  const suffix = name.split('.').pop() ?? '';
  // A suffix mixing Latin with look-alike letters (`coм`) is only there to pass for a public one.
  const lookalike =
    /[a-z0-9]/iu.test(suffix) &&
    /[^\p{ASCII}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(suffix);
  if (!/\./u.test(host) || !(lookalike || hasPublicSuffix(host))) return null;
  if (port || path) {
    const link = canonicalLink(`http://${text}`);
    return { kind: 'LINK', value: link.value, host };
  }
  return { kind: 'HOST', value: host, host };
}

function emailToken(raw: string): SensitiveToken | null {
  const text = stripTrailing(raw);
  const at = text.lastIndexOf('@');
  const host = browserHost(text.slice(at + 1));
  if (!host) return null;
  return { kind: 'EMAIL', value: `${text.slice(0, at).toLowerCase()}@${host}`, host };
}

/** Every sensitive token of a canonical text, in no particular order (duplicates possible). */
export function sensitiveTokens(canonical: string): SensitiveToken[] {
  const tokens: SensitiveToken[] = [];
  const linkSpans: [number, number][] = [];
  const addLink = (raw: string, index: number) => {
    const text = stripTrailing(endOfLink(raw));
    const link = canonicalLink(text);
    tokens.push({ kind: 'LINK', value: link.value, host: link.host });
    linkSpans.push([index, index + raw.length]);
  };
  for (const match of canonical.matchAll(SCHEME_LINK)) addLink(match[0], match.index);
  for (const match of canonical.matchAll(MARKDOWN_LINK)) addLink(match[1] ?? match[2], match.index);
  // linkify-it reads only the words that can hold a link (a dot, colon or at-sign): the same links, less text.
  const words = canonical.split(/\s+/u).filter((word) => /[.:@]/u.test(word));
  const linkified = words.length > 0 ? linkify.match(words.join(' ')) : null;
  for (const match of linkified ?? []) {
    if (match.schema === 'mailto:' && !/^mailto:/iu.test(match.raw)) {
      const email = emailToken(match.raw);
      if (email) tokens.push(email);
    } else if (match.schema === '') {
      // A fuzzy link is read as an address is: a private address or an internal name is no link.
      const token = addressToken(match.raw) ?? {
        kind: 'LINK' as const,
        value: canonicalLink(match.url).value,
      };
      tokens.push(token);
    } else {
      const link = canonicalLink(stripTrailing(endOfLink(match.url)));
      tokens.push({ kind: 'LINK', value: link.value, host: link.host });
    }
  }
  const insideLink = (index: number) => linkSpans.some(([start, end]) => index >= start && index < end);
  const hasAt = canonical.includes('@');
  if (hasAt)
    for (const match of canonical.matchAll(EMAIL)) {
      const email = emailToken(match[0]);
      if (email) tokens.push(email);
    }
  const withoutEmails = hasAt ? canonical.replace(EMAIL, (email) => ' '.repeat(email.length)) : canonical;
  for (const match of withoutEmails.matchAll(ADDRESS_RUN)) {
    // Only a run with a dot, colon or slash can be a host or an address; plain words are skipped cheaply.
    if (!/[.:/]/u.test(match[0]) || insideLink(match.index)) continue;
    // Written without spaces in Chinese text, a Latin host is still what a reader sees: read both.
    const parts = CJK.test(match[0])
      ? [match[0], ...match[0].split(CJK_RUN).filter((part) => /[.:/]/u.test(part))]
      : [match[0]];
    for (const part of parts) {
      const token = addressToken(part);
      if (token) tokens.push(token);
    }
  }
  if (canonical.includes('::') || /(?:[0-9a-f]{1,4}:){7}/iu.test(canonical))
    for (const match of canonical.matchAll(IPV6)) {
      const address = match[1];
      if (!ipaddr.IPv6.isValid(address)) continue;
      const value = ipaddr.IPv6.parse(address).toString();
      tokens.push({ kind: 'IP', value, host: `[${value}]`, endpoint: Boolean(match[2]) });
    }
  for (const match of canonical.matchAll(PHONE))
    tokens.push({ kind: 'PHONE', value: match[0].replace(/[^\d+]/gu, '').replace(/(?!^)\+/gu, '') });
  for (const match of withoutEmails.matchAll(CHAT_HANDLE))
    tokens.push({ kind: 'CHAT_HANDLE', value: stripTrailing(match[0]).toLowerCase().replace(/\s+/gu, '') });
  for (const match of canonical.matchAll(FILE_PATH)) {
    if (insideLink(match.index)) continue;
    const route =
      ROUTE_PREFIX.test(match[0]) ||
      ROUTE_BEFORE.test(canonical.slice(Math.max(0, match.index - 8), match.index));
    if (route && !/(?:^|\/)\.\.(?:\/|$)|%2e/iu.test(match[0])) continue;
    // A path ending in `/..` or `/.` names that directory's parent or itself: its dots are no full stop.
    tokens.push({
      kind: 'FILE_PATH',
      value: /\/\.\.?$/u.test(match[0]) ? match[0] : stripTrailing(match[0]),
    });
  }
  return tokens;
}

/** A domain as the WHATWG URL parser spells it (`domainToASCII`), lower-cased, without a trailing dot. */
export function asciiDomain(text: string): string {
  return domainToASCII(text.trim().toLowerCase()).replace(/\.$/u, '');
}

/** Characters NFKC may turn into an ASCII letter or digit (`¹`, `™`, fullwidth letters): not CJK, spaces or punctuation. */
const FOLD_CANDIDATE =
  /[^\p{ASCII}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\s\p{P}]/gu;

/** Whether NFKC glues an ASCII letter or digit into the text, which could hide a token from that reading. */
function foldsToAlphanumeric(text: string): boolean {
  for (const [char] of text.matchAll(FOLD_CANDIDATE))
    if (/[A-Za-z0-9]/u.test(char.normalize('NFKC'))) return true;
  return false;
}

/**
 * The tokens of a text in every reading: `all` of the canonical reading, the displayed one
 * (release-normalise `displayedReading`) and the text as it stands — a reading can glue a character onto a
 * token (a bullet, a superscript, a look-alike letter) and hide it from itself, not from all three — and
 * `written`, those of the displayed reading and the text as it stands, where a voucher's token must be.
 * Most texts read the same all three ways; their tokens are found once.
 */
export function tokensOfEveryReading(
  text: string,
  canonical: string,
): { all: SensitiveToken[]; written: SensitiveToken[] } {
  const displayed = displayedReading(text);
  const canonicalTokens = sensitiveTokens(canonical);
  const displayedTokens = displayed === canonical ? canonicalTokens : sensitiveTokens(displayed);
  // The text as it stands reads differently from the displayed reading only where NFKC folded a character
  // into a letter or digit (`evil-support.com¹` displays as `…com1`, no host).
  const written = foldsToAlphanumeric(text)
    ? [...displayedTokens, ...sensitiveTokens(text)]
    : displayedTokens;
  return { all: written === canonicalTokens ? written : [...canonicalTokens, ...written], written };
}
