/**
 * Text as the database stores it: cut by code points, never inside a surrogate pair, and with lone
 * surrogates (which no UTF-8 column or JSON value accepts) replaced by U+FFFD. JavaScript counts UTF-16
 * code units, so `slice` can leave half an emoji, which MySQL refuses in a JSON column and a run would
 * lose its report over.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text with every lone surrogate replaced by U+FFFD; well-formed text is returned as it is. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * At most `maxCodePoints` code points of well-formed text, with `marker` appended when something was
 * cut (the marker is not counted). Cheap for text already short enough: no copy is made.
 */
export function cutText(text: string, maxCodePoints: number, marker = ''): string {
  const clean = wellFormed(text);
  if (clean.length <= maxCodePoints) return clean;
  let units = 0;
  let points = 0;
  while (units < clean.length && points < maxCodePoints) {
    const code = clean.charCodeAt(units);
    units += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
    points += 1;
  }
  return units >= clean.length ? clean : `${clean.slice(0, units)}${marker}`;
}
