import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROMPT_ROLES, PromptLibrary, renderToolLines } from './prompt-library';

describe('renderToolLines', () => {
  const prompt = ['Tools:', '- a: first', '- query_logs: logs <!-- tool: query_logs -->', '- c: third'].join(
    '\n',
  );

  it('keeps a tagged line, without its tag, when the call offers the tool', () => {
    expect(renderToolLines(prompt, ['a', 'query_logs'])).toBe(
      ['Tools:', '- a: first', '- query_logs: logs', '- c: third'].join('\n'),
    );
  });

  it('drops a tagged line when the tool is not offered', () => {
    expect(renderToolLines(prompt, ['a'])).toBe(['Tools:', '- a: first', '- c: third'].join('\n'));
    expect(renderToolLines(prompt, [])).not.toContain('query_logs');
  });
});

describe('PromptLibrary', () => {
  const directory = mkdtempSync(join(tmpdir(), 'prompts-'));
  for (const role of PROMPT_ROLES) {
    writeFileSync(
      join(directory, `${role}.md`),
      [
        `<!-- role: ${role} -->`,
        '- query_logs <!-- tool: query_logs -->',
        '- query_mysql <!-- tool: query_mysql -->',
      ].join('\n'),
    );
  }
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('renders each role and tool set on its own, also when the same prompt is asked for again', () => {
    const library = new PromptLibrary(directory);
    const both = library.text('diagnosis-agent', ['query_logs', 'query_mysql']);
    expect(library.text('diagnosis-agent', ['query_logs'])).toBe(
      '<!-- role: diagnosis-agent -->\n- query_logs',
    );
    expect(library.text('diagnosis-agent')).toBe('<!-- role: diagnosis-agent -->');
    expect(library.text('semantic-guard', ['query_logs'])).toBe(
      '<!-- role: semantic-guard -->\n- query_logs',
    );
    expect(library.text('diagnosis-agent', ['query_logs', 'query_mysql'])).toBe(both);
    expect(both).toBe('<!-- role: diagnosis-agent -->\n- query_logs\n- query_mysql');
  });
});

describe('the shipped prompts', () => {
  // The business lives in the configured data sources (tool descriptions), never in the prompts.
  const library = new PromptLibrary(join(__dirname, '../../../../prompts'));

  it.each(PROMPT_ROLES)('%s assumes no particular business (no orders or payments)', (role) => {
    const text = library.text(role, ['lookup_knowledge', 'query_logs', 'query_mysql', 'query_metrics']);
    expect(text).not.toMatch(/\borders?\b|\bpayments?\b|订单|支付/i);
  });
});
