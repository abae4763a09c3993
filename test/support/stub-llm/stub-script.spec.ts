import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseStubScript, StubReply, StubScriptPlayer } from './stub-script';

const userMessage = (query: string, previousQuery?: string) =>
  JSON.stringify({
    query,
    previous_turn: previousQuery === undefined ? null : { user_query: previousQuery },
  });

describe('StubScriptPlayer', () => {
  it('a reply with both `match` and `turn` answers only that turn of a matching question', () => {
    const player = new StubScriptPlayer(
      parseStubScript({
        roles: {
          agent: [
            { match: 'metrics', match_path: 'query', turn: 0, content: 'metrics plan' },
            { match: 'metrics', match_path: 'query', turn: 1, content: 'metrics report' },
            { turn: 0, content: 'plan' },
            { turn: 1, content: 'report' },
          ],
        },
      }),
    );
    const follow = userMessage('check its metrics', 'order-123 times out');
    const first = userMessage('order-123 times out');
    expect([
      player.next('agent', follow, 0)?.content,
      player.next('agent', follow, 1)?.content,
      player.next('agent', first, 0)?.content,
      player.next('agent', first, 1)?.content,
      // The previous question holds the word, but match_path reads the new query only.
      player.next('agent', userMessage('why again?', 'check its metrics'), 0)?.content,
    ]).toEqual(['metrics plan', 'metrics report', 'plan', 'report', 'plan']);
  });
});

/** The demo's own script (demo/stub-llm-script.json), as `npm run demo` plays it. */
describe('the demo stub script', () => {
  const script = parseStubScript(
    JSON.parse(readFileSync(join(__dirname, '../../../demo/stub-llm-script.json'), 'utf8')),
  );
  const agentReplies = (query: string, previousQuery?: string) => {
    const player = new StubScriptPlayer(script);
    return [0, 1].map((turn) => player.next('diagnosis-agent', userMessage(query, previousQuery), turn)!);
  };
  const toolNames = (reply: StubReply) => (reply.tool_calls ?? []).map((call) => call.name);
  const cited = (reply: StubReply) =>
    (JSON.parse(reply.content!) as { analysis: { tool_call_ids: string[] }[] }).analysis.flatMap(
      (analysis) => analysis.tool_call_ids,
    );
  const conclusion = (reply: StubReply) =>
    (JSON.parse(reply.content!) as { conclusion: { text: string } }).conclusion.text;

  it('answers the metrics follow-up with a query_metrics plan and a different report citing only it', () => {
    const [firstPlan, firstReport] = agentReplies('订单 order-123 支付超时，帮我排查原因');
    const [plan, report] = agentReplies(
      'payment-service 饱和了吗？查一下它的指标',
      '订单 order-123 支付超时，帮我排查原因',
    );
    expect(toolNames(firstPlan)).toEqual(['query_logs', 'lookup_knowledge', 'query_mysql']);
    expect(new Set(toolNames(plan))).toEqual(new Set(['query_metrics']));
    const metricCalls = new Set(plan.tool_calls!.map((call) => call.id));
    expect(cited(report).every((id) => metricCalls.has(id))).toBe(true);
    expect(conclusion(report)).not.toBe(conclusion(firstReport));
    expect(agentReplies('is the payment service saturated? check its metrics')[0]).toBe(plan);
  });
});
