/**
 * Characters that make a text display differently from what it holds or hide in it: every Unicode
 * format character (bidi controls, zero-width characters, soft hyphens, tag characters…), every
 * default-ignorable code point (variation selectors, Hangul fillers…), control characters but tab and
 * line ends, private-use, unassigned and lone surrogate code points and the blank braille pattern, by
 * Unicode's own properties as the server's release checks use them. The server refuses released text holding them
 * (docs/release-gate.md); whatever still arrives (evidence, an older run) is shown with each one made
 * visible, never interpreted.
 */
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- control characters are what this class is for
  /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Co}\p{Cn}\p{Cs}\u2800\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/gu;

/** The text with every hidden character shown as a visible `⟦U+202E⟧` mark. */
export function revealHidden(text: string): string {
  return text.replace(
    HIDDEN,
    (char) => `⟦U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟧`,
  );
}

/** Every string of a value (object keys included) with its hidden characters made visible. */
export function revealHiddenIn<T>(value: T): T {
  if (typeof value === 'string') return revealHidden(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => revealHiddenIn(item)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [revealHidden(key), revealHiddenIn(item)]),
    ) as T;
  return value;
}
