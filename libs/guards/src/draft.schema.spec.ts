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
    [
      'camelCase keys',
      JSON.stringify({
        conclusion: null,
        analysis: [{ analysisId: 'a1', kind: 'NORMAL', text: 't', toolCallIds: ['call_1'] }],
        actionPlan: [],
        recommendations: [],
        limitations: { scope: 's', missingInfo: [] },
      }),
    ],
    [
      'JSON5 (comments, single quotes, trailing commas)',
      "{conclusion: null, // none\n analysis: [{analysis_id: 'a1', kind: 'NORMAL', text: 't', tool_call_ids: ['call_1'],},], action_plan: [], recommendations: [], limitations: {scope: 's', missing_info: [],},}",
    ],
    [
      'full-width quotes, colons and commas',
      '{“conclusion”：null，“analysis”：[{“analysis_id”：“a1”，“kind”：“NORMAL”，“text”：“t”，“tool_call_ids”：[“call_1”]}]，“action_plan”：[]，“recommendations”：[]，“limitations”：{“scope”：“s”，“missing_info”：[]}}',
    ],
  ])('parses %s', (_name, text) => {
    expect(parseDraft(text)).toEqual({ ok: true, draft: valid });
  });

  it.each([
    ['prose', 'The pool is exhausted.', 'the final answer is not a JSON object: convert it'],
    [
      'a wrong kind',
      JSON.stringify({ ...valid, analysis: [{ ...valid.analysis[0], kind: 'GUESS' }] }),
      'schema: analysis.0.kind',
    ],
    ['a missing section', JSON.stringify({ ...valid, limitations: undefined }), 'schema: limitations'],
    ['an extra field', JSON.stringify({ ...valid, confidence: 0.9 }), 'schema: (root)'],
  ])('reports %s as violations', (_name, text, violation) => {
    const result = parseDraft(text);
    expect(result).toMatchObject({ ok: false, unreadable: true });
    expect(JSON.stringify(result)).toContain(violation);
  });
});
