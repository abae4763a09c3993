/**
 * Characters that make a text display differently from what it holds (bidi embeddings, overrides,
 * isolates and marks) or hide in it (zero-width spaces and joiners, soft hyphens, invisible operators,
 * variation selectors, tag characters, Hangul fillers). The server refuses released text holding them
 * (docs/release-gate.md); whatever still arrives (evidence, an older run) is shown with each one made
 * visible, never interpreted.
 */
const HIDDEN_SOURCE = String.raw`[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]`;
// Removing lone joiners and variation selectors is the point here, so the class holds them on purpose.
// eslint-disable-next-line no-misleading-character-class
const HIDDEN = new RegExp(HIDDEN_SOURCE, 'gu');

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
