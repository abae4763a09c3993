import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDraft } from '../../../libs/guards/src/draft.schema';
import { parseStubScript, StubScriptPlayer } from './stub-script';

/** docs/stub-llm.md's full example: a script the stub loads, whose final diagnosis reply is a valid draft. */
function documentedScript(): unknown {
  const page = readFileSync(join(__dirname, '../../../docs/stub-llm.md'), 'utf8');
  const block = /```json\n([\s\S]*?)\n```/.exec(page);
  if (!block) throw new Error('docs/stub-llm.md has no json block');
  return JSON.parse(block[1]);
}

describe('docs/stub-llm.md', () => {
  it('shows a script the stub accepts', () => {
    expect(() => parseStubScript(documentedScript())).not.toThrow();
  });

  it('routes a greeting and a diagnosis, and the diagnosis ends in a valid draft', () => {
    const player = new StubScriptPlayer(parseStubScript(documentedScript()));
    expect(player.next('intent-router', JSON.stringify({ query: 'hello' }), 0)?.content).toBe('SYSTEM_CHAT');
    expect(player.next('intent-router', JSON.stringify({ query: 'order-123 timed out' }), 0)?.content).toBe(
      'DIAGNOSIS',
    );
    const plan = player.next('diagnosis-agent', 'order-123 timed out', 0);
    const calls = (plan?.tool_calls ?? []).map((call) => call.id);
    expect(calls).toEqual(['call_logs_1', 'call_kb_1', 'call_sql_1']);
    const answer = player.next('diagnosis-agent', 'order-123 timed out', 1);
    expect(answer?.tool_calls).toBeUndefined();
    const parsed = parseDraft(answer?.content ?? '');
    if (!parsed.ok) throw new Error(parsed.violations.join('; '));
    const cited = parsed.draft.analysis.flatMap((item) => item.tool_call_ids);
    expect(cited.every((id) => calls.includes(id))).toBe(true);
  });
});
