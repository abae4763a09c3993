/** How far from the page's end (px) reading counts as "scrolled up into the answer". */
export const READING_MARGIN_PX = 120;

/**
 * The sticky composer shrinks to one line while the user reads an answer (scrolled up from the page's
 * end) and has nothing typed and no focus in it; it is full size at the end of the page, when focused
 * and whenever it holds text.
 */
export function isComposerCompact(state: {
  distanceToEndPx: number;
  focused: boolean;
  hasText: boolean;
  hasTurns: boolean;
}): boolean {
  return state.hasTurns && !state.focused && !state.hasText && state.distanceToEndPx > READING_MARGIN_PX;
}
