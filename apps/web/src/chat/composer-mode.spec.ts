import { isComposerCompact, READING_MARGIN_PX } from './composer-mode';

const reading = {
  conversationBelowPx: READING_MARGIN_PX + 1,
  focused: false,
  hasText: false,
  hasTurns: true,
};

describe('isComposerCompact', () => {
  it.each([
    ['reading an answer, more of it below the viewport', reading, true],
    ['at the end of the conversation', { ...reading, conversationBelowPx: READING_MARGIN_PX }, false],
    ['focused', { ...reading, focused: true }, false],
    ['holding a draft question', { ...reading, hasText: true }, false],
    ['no conversation yet', { ...reading, hasTurns: false }, false],
  ])('%s → %s', (_name, state, compact) => {
    expect(isComposerCompact(state)).toBe(compact);
  });
});
