import { checkKnowledgeAnswer, NOT_FOUND_ANSWER, RetrievedDocument } from './knowledge-answer';

const doc = (id: string): RetrievedDocument => ({
  document_id: id,
  title: `T ${id}`,
  source: `${id}.md`,
  breadcrumb: 'B',
  excerpt: 'E',
});

describe('checkKnowledgeAnswer', () => {
  it('keeps only retrieved references', () => {
    const text = JSON.stringify({
      answer: 'Check the pool.',
      references: ['doc-1', 'doc-invented', 'doc-1'],
      limitations: 'runbook only',
    });
    expect(checkKnowledgeAnswer(text, [doc('doc-1'), doc('doc-2')])).toEqual({
      answer: 'Check the pool.',
      references: [doc('doc-1')],
      limitations: 'runbook only',
      found: true,
    });
  });

  it.each([
    [
      'citing only invented documents',
      JSON.stringify({ answer: 'x', references: ['doc-x'], limitations: '' }),
    ],
    ['citing nothing', JSON.stringify({ answer: 'x', references: [], limitations: '' })],
  ])('falls back to "not found" when %s', (_name, text) => {
    expect(checkKnowledgeAnswer(text, [doc('doc-1')])).toMatchObject({
      answer: NOT_FOUND_ANSWER,
      references: [],
      found: false,
    });
  });

  it.each([
    ['prose instead of JSON', 'The answer is 42.'],
    ['JSON of another shape', JSON.stringify({ text: 'x', sources: ['doc-1'] })],
    ['an empty reply', ''],
  ])('reads %s as no answer at all (null), never as "not found"', (_name, text) => {
    expect(checkKnowledgeAnswer(text, [doc('doc-1')])).toBeNull();
  });
});
