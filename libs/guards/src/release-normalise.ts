import unhomoglyph from 'unhomoglyph';

/**
 * The canonical reading of a text before any release rule (docs/release-gate.md "Canonical reading"):
 * a disguise must not change what a rule sees. Decodes HTML entities, applies NFKC (fullwidth letters,
 * digits and punctuation become ASCII), removes zero-width and bidi controls, reads confusable letters
 * (UTS #39 skeleton, via `unhomoglyph`) as the Latin letter they imitate, reads ideographic full stops
 * inside a word as dots (as WHATWG IDNA does), undoes defanging (`hxxp`, `[.]`, `(dot)`, `(at)`) and
 * collapses spaced schemes and spaced dangerous tags. Pure; the result is only matched against, never
 * released.
 */

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  colon: ':',
  sol: '/',
  bsol: '\\',
  period: '.',
  commat: '@',
  lpar: '(',
  rpar: ')',
  lsqb: '[',
  rsqb: ']',
  tab: '\t',
  newline: '\n',
  equals: '=',
  num: '#',
  excl: '!',
  quest: '?',
  semi: ';',
  comma: ',',
  grave: '`',
  vert: '|',
  dollar: '$',
  lcub: '{',
  rcub: '}',
};

/**
 * Characters that change how a text displays, or hide inside it, without being seen: every Unicode
 * format character (bidi embeddings, overrides, isolates and marks, zero-width spaces and joiners, soft
 * hyphens, invisible operators, tag characters, interlinear annotation, shorthand format controls…),
 * every default-ignorable code point (variation selectors, Hangul fillers, and the ranges Unicode keeps
 * ignorable for characters not yet assigned), control characters but tab and line ends (NUL, terminal
 * escapes), private-use, unassigned and lone surrogate code points, and the blank braille pattern.
 * Chosen by Unicode's own properties, not listed by hand: whatever a renderer drops or draws as nothing
 * is in a class here, whichever one a list would have missed.
 */
const HIDDEN_SOURCE = String.raw`[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Co}\p{Cn}\p{Cs}\u2800\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]`;
const HIDDEN = new RegExp(HIDDEN_SOURCE, 'gu');
const HAS_HIDDEN = new RegExp(HIDDEN_SOURCE, 'u');

/** Whether a text holds a bidi control or an invisible character (after entity decoding and NFKC). */
export function hiddenControlsIn(text: string): boolean {
  return HAS_HIDDEN.test(decodeAll(text).normalize('NFKC'));
}

/** Every hidden character of a text shown as a visible `⟦U+202E⟧` mark, for display only. */
export function revealHiddenControls(text: string): string {
  return text.replace(
    HIDDEN,
    (char) => `⟦U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟧`,
  );
}

function decodeEntities(text: string): string {
  // Any number of leading zeros, as browsers read them (`&#0000000106;` is `j`).
  return text.replace(/&(?:#0*(\d{1,7})|#x0*([0-9a-f]{1,6})|([a-z]{2,8}));?/giu, (whole, dec, hex, name) => {
    if (dec !== undefined || hex !== undefined) {
      const code = dec !== undefined ? Number(dec) : parseInt(hex as string, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[(name as string).toLowerCase()] ?? whole;
  });
}

/** Twice: a doubly encoded entity (`&amp;#97;`) is still one character to a browser that decodes twice. */
const decodeAll = (text: string) => decodeEntities(decodeEntities(text));

const latinReadings = new Map<string, string>();
/** The ASCII a non-ASCII letter or dot imitates (UTS #39 skeleton), or the character itself. */
function latinReading(char: string): string {
  let reading = latinReadings.get(char);
  if (reading === undefined) {
    const skeleton = unhomoglyph(char);
    reading = /^[\x21-\x7e]+$/u.test(skeleton) && /[\p{L}\p{N}.]/u.test(skeleton) ? skeleton : char;
    latinReadings.set(char, reading);
  }
  return reading;
}

/** Letters of scripts that are no Latin look-alike (CJK, kana, Hangul) are read as written. */
const CONFUSABLE_CANDIDATE =
  /[^\p{ASCII}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\s]/gu;

const spaced = (word: string) => word.split('').join(String.raw`[\s]*`);
const SPACED_SCHEME = new RegExp(
  String.raw`\b(${['https', 'http', 'ftp', 'sftp', 'file', 'javascript', 'vbscript', 'data'].map(spaced).join('|')})\s*:(\s*\/\s*\/\s*)?`,
  'giu',
);
const DANGEROUS_TAGS = 'script|iframe|frame|object|embed|style|form|svg|img|link|meta|base|math|template';
const SPACED_TAG = new RegExp(String.raw`<\s*(\/?)\s*(${DANGEROUS_TAGS})\b`, 'giu');
/** WHATWG IDNA reads these as label separators: `evil。com` is `evil.com` to a browser. */
const IDEOGRAPHIC_DOT =
  /(?<=[A-Za-z0-9-])[\u3002\uff0e\uff61](?=[\p{L}\p{N}])|(?<=[\p{L}\p{N}])[\u3002\uff0e\uff61](?=[A-Za-z0-9])/gu;

/**
 * A text as a browser takes what it displays: NFKC and IDNA's ideographic dots, hidden characters dropped
 * (UTS #46 maps them to nothing), but no look-alike folding, entity decoding or undoing of defanged
 * spellings, which no browser or shell does. Provenance compares tokens in this reading too: a runbook
 * or the allowlist vouches for `corp.com`, never for `cоrp.com` (Cyrillic о) that reads as it.
 */
export function displayedReading(text: string): string {
  return text.normalize('NFKC').replace(HIDDEN, '').replace(IDEOGRAPHIC_DOT, '.');
}

export function normaliseForRelease(text: string): string {
  let out = decodeAll(text).normalize('NFKC').replace(HIDDEN, '');
  out = out.replace(CONFUSABLE_CANDIDATE, latinReading).replace(IDEOGRAPHIC_DOT, '.');
  out = out
    .replace(/\bh(?:xx|\*\*|tt)p(s?)\b/giu, 'http$1')
    .replace(/\bfxp\b/giu, 'ftp')
    .replace(/\s*(?:\[\s*(?:\.|dot)\s*\]|\(\s*(?:\.|dot)\s*\)|\{\s*(?:\.|dot)\s*\}|<\s*dot\s*>)\s*/giu, '.')
    .replace(/\s*(?:\[\s*(?:@|at)\s*\]|\(\s*(?:@|at)\s*\)|\{\s*(?:@|at)\s*\}|<\s*at\s*>)\s*/giu, '@')
    .replace(/\[\s*:\s*\]/gu, ':')
    .replace(/\[\s*(:?\/\/)\s*\]/gu, '$1')
    .replace(SPACED_SCHEME, (match) => match.replace(/\s+/gu, ''))
    .replace(SPACED_TAG, '<$1$2');
  return out;
}

const printable = (text: string) => /^[\x20-\x7e\t\n]+$/u.test(text) && /[a-z]{2}/iu.test(text);

function decodedBlobs(text: string): string[] {
  const decoded: string[] = [];
  for (const match of text.matchAll(/(?<![\w+/])[A-Za-z0-9+/]{10,}={0,2}(?![\w+/=])/gu)) {
    if (match[0].length < 12 || match[0].length % 4 !== 0 || /^[a-z]+$/iu.test(match[0])) continue;
    const plain = Buffer.from(match[0], 'base64').toString('latin1');
    if (printable(plain)) decoded.push(plain);
  }
  for (const match of text.matchAll(/(?:\\x[0-9a-f]{2}){3,}|\b0x(?:[0-9a-f]{2}){4,}\b/giu)) {
    const hex = match[0].replace(/\\x|^0x/giu, '');
    const plain = Buffer.from(hex, 'hex').toString('latin1');
    if (printable(plain)) decoded.push(plain);
  }
  return decoded;
}

/**
 * The canonical reading as a shell or SQL client would read it, for the command rules only: SQL comment
 * delimiters read as spaces with what they enclose kept (MySQL runs a versioned comment's contents, and
 * nothing a reading deletes may escape the rules); line continuations removed, quotes and escapes
 * inside words dropped (`r''m`, `"DELETE"`), `$IFS` read as a space, brace lists expanded to words, and hex
 * or base64 blobs that decode to printable text appended, so a command hidden in them is seen.
 */
export function commandReading(text: string, canonical: string = normaliseForRelease(text)): string {
  const read = canonical
    .replace(/\/\*(?:[!+]|M!)?\d*([\s\S]*?)\*\//gu, (_whole, inside: string) =>
      inside ? ` ${inside} ` : ' ',
    )
    .replace(/\\\r?\n/gu, '')
    .replace(/\$\{?IFS\}?(?:\$\d)?/gu, ' ')
    .replace(/\{([^{}\s]*,[^{}\s]*)\}/gu, (_whole, list: string) => list.split(',').join(' '))
    .replace(/(?<=\w)(?:''|"")(?=\w)|(?<=\w)\\(?=\w)/gu, '')
    .replace(/(?<![\w'"])(['"`])([a-z_][\w-]*)\1(?![\w'"])/giu, '$2');
  return [read, ...decodedBlobs(canonical)].join('\n');
}
