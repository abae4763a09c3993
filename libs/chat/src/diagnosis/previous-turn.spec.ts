import type { DiagnosisRun, PublishedResult } from '@app/trace';
import { previousTurnOf } from './previous-turn';

const published: PublishedResult = {
  user_query: 'order-123 payment times out',
  published_conclusion: 'pool exhaustion',
  scope: 'order-service',
  limitations: ['no slow query log'],
  source_documents: [
    { document_id: 'doc-1', title: 'Pool runbook' },
    { document_id: 'doc-2', title: 'Timeouts' },
  ],
};
const LIMITS = { maxFieldChars: 1000, maxSourceDocuments: 5 };
type Previous = Pick<DiagnosisRun, 'intent' | 'releaseOutcome' | 'publishedResult'>;
const run = (over: Partial<Previous>): Previous => ({
  intent: 'DIAGNOSIS',
  releaseOutcome: 'SUCCESS',
  publishedResult: published,
  ...over,
});

describe('previousTurnOf', () => {
  it('builds the turn from a released diagnosis, cut to the limits', () => {
    expect(previousTurnOf(run({}), { maxFieldChars: 5, maxSourceDocuments: 1 })).toEqual({
      user_query: 'order',
      published_conclusion: 'pool ',
      scope: 'order',
      limitations: ['no sl'],
      source_documents: [{ document_id: 'doc-1', title: 'Pool ' }],
    });
  });

  it.each<[string, Previous | null]>([
    ['there is no previous turn', null],
    ['the previous turn was a knowledge answer', run({ intent: 'KNOWLEDGE_QUERY', publishedResult: null })],
    ['the previous turn was a system chat', run({ intent: 'SYSTEM_CHAT', publishedResult: null })],
    ['the previous diagnosis fell back', run({ releaseOutcome: 'FALLBACK', publishedResult: null })],
    ['the previous diagnosis failed', run({ releaseOutcome: 'FAILED' })],
    ['the previous diagnosis was cancelled', run({ releaseOutcome: 'CANCELLED' })],
    ['the released run has no published result', run({ publishedResult: null })],
  ])('is null when %s', (_name, previous) => {
    expect(previousTurnOf(previous, LIMITS)).toBeNull();
  });
});
