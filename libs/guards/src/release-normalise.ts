/**
 * Text as the release checks read it: a disguise must not change what a detector sees. Decodes HTML
 * entities, applies NFKC (fullwidth letters, digits and punctuation become ASCII), removes zero-width
 * and bidi controls, undoes defanging (`hxxp`, `[.]`, `(dot)`, `(at)`) and collapses spaced schemes
 * and spaced dangerous tags. Pure; the result is only matched against, never released.
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
};

// Removing lone joiners and variation selectors is the point here, so the class holds them on purpose.
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/gu;

function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,8}));?/giu, (whole, dec, hex, name) => {
    if (dec !== undefined || hex !== undefined) {
      const code = dec !== undefined ? Number(dec) : parseInt(hex as string, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[(name as string).toLowerCase()] ?? whole;
  });
}

const spaced = (word: string) => word.split('').join(String.raw`[\s]*`);
const SPACED_SCHEME = new RegExp(
  String.raw`\b(${['https', 'http', 'ftp', 'sftp', 'file', 'javascript', 'vbscript', 'data'].map(spaced).join('|')})\s*:(\s*\/\s*\/)?`,
  'giu',
);
const DANGEROUS_TAGS = 'script|iframe|frame|object|embed|style|form|svg|img|link|meta|base|math|template';
const SPACED_TAG = new RegExp(String.raw`<\s*(\/?)\s*(${DANGEROUS_TAGS})\b`, 'giu');

export function normaliseForRelease(text: string): string {
  let out = text;
  // Twice: a doubly encoded entity (`&amp;#97;`) is still one character to a browser that decodes twice.
  for (let i = 0; i < 2; i++) out = decodeEntities(out);
  out = out.normalize('NFKC').replace(INVISIBLE, '');
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
