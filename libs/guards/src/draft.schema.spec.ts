import { parseDraft } from './draft.schema';

const valid = {
  conclusion: null,
  analysis: [{ analysis_id: 'a1', kind: 'NORMAL', text: 't', tool_call_ids: ['call_1'] }],
  action_plan: [],
  recommendations: [],
  limitations: { scope: 's', missing_info: [] },
};

describe('parseDraft', () => {
  it.each([
    ['plain JSON', JSON.stringify(valid)],
    ['a ```json fence', `\`\`\`json\n${JSON.stringify(valid)}\n\`\`\``],
  ])('parses %s', (_name, text) => {
    expect(parseDraft(text)).toEqual({ ok: true, draft: valid });
  });

  it.each([
    ['prose', 'The pool is exhausted.', 'the final answer is not a JSON object'],
    [
      'a wrong kind',
      JSON.stringify({ ...valid, analysis: [{ ...valid.analysis[0], kind: 'GUESS' }] }),
      'schema: analysis.0.kind',
    ],
    ['a missing section', JSON.stringify({ ...valid, limitations: undefined }), 'schema: limitations'],
    ['an extra field', JSON.stringify({ ...valid, confidence: 0.9 }), 'schema: (root)'],
  ])('reports %s as violations', (_name, text, violation) => {
    const result = parseDraft(text);
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).toContain(violation);
  });
});
