/** How much of the conversation (px) must lie below the viewport for reading to count as "scrolled up". */
export const READING_MARGIN_PX = 120;

/**
 * The sticky composer shrinks to one line while the user reads an answer (more of the conversation below
 * the viewport than the margin) and has nothing typed and no focus in it; it is full size at the end of
 * the conversation, when focused and whenever it holds text. Measured on the conversation, not the page,
 * so the composer's own change of height never flips the decision back (no flicker at the boundary).
 */
export function isComposerCompact(state: {
  conversationBelowPx: number;
  focused: boolean;
  hasText: boolean;
  hasTurns: boolean;
}): boolean {
  return state.hasTurns && !state.focused && !state.hasText && state.conversationBelowPx > READING_MARGIN_PX;
}
