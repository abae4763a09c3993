import { parseDraft } from './draft.schema';
import { repairContentChanges } from './repair-scope';

const original = {
  conclusion: { text: 'Pool exhaustion causes the timeouts', based_on_analysis_ids: ['a1'] },
  analysis: [
    { analysis_id: 'a1', kind: 'NORMAL', text: '84 pool timeouts', tool_call_ids: ['call_invented'] },
    { analysis_id: 'a2', kind: 'NEGATIVE_OBSERVATION', text: 'no deploys', tool_call_ids: ['call_x'] },
  ],
  action_plan: [
    { action: 'Stop the long transaction', based_on_analysis_ids: ['a1'], requires_human_confirmation: true },
  ],
  recommendations: [{ text: 'Alert on waiting threads', based_on_analysis_ids: ['a1'] }],
  limitations: { scope: 'order-service, 30 minutes', missing_info: ['no slow query log'] },
};

function repaired(change: (draft: typeof original) => void) {
  const draft = structuredClone(original);
  change(draft);
  const parsed = parseDraft(JSON.stringify(draft));
  if (!parsed.ok) throw new Error(parsed.violations.join('; '));
  return parsed.draft;
}

describe('repairContentChanges', () => {
  it.each<[string, (draft: typeof original) => void]>([
    ['fixing a citation', (d) => (d.analysis[0].tool_call_ids = ['call_logs_1'])],
    ['dropping an analysis and its references', (d) => d.analysis.splice(1, 1)],
    ['setting the conclusion to null', (d) => ((d as { conclusion: unknown }).conclusion = null)],
    ['dropping an action', (d) => d.action_plan.splice(0, 1)],
  ])('accepts a structural repair: %s', (_name, change) => {
    expect(repairContentChanges(JSON.stringify(original), repaired(change))).toEqual([]);
  });

  it.each<[string, (draft: typeof original) => void, string]>([
    [
      'a new conclusion',
      (d) => (d.conclusion.text = 'The database is down'),
      'the conclusion text was changed',
    ],
    ['a reworded analysis', (d) => (d.analysis[0].text = '90 pool timeouts'), 'analysis a1 was changed'],
    ['a re-kinded analysis', (d) => (d.analysis[1].kind = 'NORMAL'), 'analysis a2 was changed'],
    [
      'an added analysis',
      (d) => d.analysis.push({ analysis_id: 'a3', kind: 'NORMAL', text: 'new fact', tool_call_ids: ['c'] }),
      'analysis a3 was added',
    ],
    [
      'a changed action',
      (d) => (d.action_plan[0].action = 'Restart MySQL'),
      'action_plan[0] was added or changed',
    ],
    [
      'a changed recommendation',
      (d) => (d.recommendations[0].text = 'Add replicas'),
      'recommendations[0] was added or changed',
    ],
    ['a changed scope', (d) => (d.limitations.scope = 'all services'), 'limitations.scope was changed'],
  ])('rejects %s', (_name, change, expected) => {
    expect(repairContentChanges(JSON.stringify(original), repaired(change))).toContain(expected);
  });

  it('rejects any text when the original answer was not a draft at all', () => {
    expect(
      repairContentChanges(
        'the pool is exhausted',
        repaired(() => undefined),
      ).length,
    ).toBeGreaterThan(0);
  });

  it.each([
    [
      'prose holding a placeholder brace',
      `已查询 {order_id} 的日志，结论如下：\n${JSON.stringify(original)}`,
    ],
    ['a plan object before the draft', `{"step":"check logs"}\n${JSON.stringify(original)}`],
    [
      'the draft fenced, then a remark with braces',
      `\`\`\`json\n${JSON.stringify(original)}\n\`\`\`\n{see above}`,
    ],
  ])('compares by parsed value when the original was too ambiguous to read: %s', (_name, answer) => {
    const fixed = repaired((d) => (d.analysis[0].tool_call_ids = ['call_logs_1']));
    expect(repairContentChanges(answer, fixed)).toEqual([]);
  });

  it('still rejects changed text against every object of an ambiguous original', () => {
    const answer = `{"step":"check logs"}\n${JSON.stringify(original)}`;
    expect(
      repairContentChanges(
        answer,
        repaired((d) => (d.conclusion.text = 'The database is down')),
      ),
    ).toEqual(['the conclusion text was changed']);
  });
});
