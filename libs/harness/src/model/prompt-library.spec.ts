import { renderToolLines } from './prompt-library';

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
