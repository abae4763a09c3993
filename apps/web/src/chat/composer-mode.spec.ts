import { isComposerCompact, READING_MARGIN_PX } from './composer-mode';

const reading = { distanceToEndPx: READING_MARGIN_PX + 1, focused: false, hasText: false, hasTurns: true };

describe('isComposerCompact', () => {
  it.each([
    ['reading an answer above the page end', reading, true],
    ['at the end of the page', { ...reading, distanceToEndPx: READING_MARGIN_PX }, false],
    ['focused', { ...reading, focused: true }, false],
    ['holding a draft question', { ...reading, hasText: true }, false],
    ['no conversation yet', { ...reading, hasTurns: false }, false],
  ])('%s → %s', (_name, state, compact) => {
    expect(isComposerCompact(state)).toBe(compact);
  });
});
