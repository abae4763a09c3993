import { errorWhere } from './run-logger';

describe('errorWhere (what the log keeps of an unexpected error)', () => {
  const withSql = () => {
    const error = new Error("Duplicate entry 'card 4111-1111' for key; INSERT INTO t VALUES ('hunter2')");
    return Object.assign(error, { code: 'ER_DUP_ENTRY' });
  };

  it('keeps the type, a driver code and the frames where it was thrown', () => {
    const where = errorWhere(withSql());
    expect(where.type).toBe('Error');
    expect(where.code).toBe('ER_DUP_ENTRY');
    expect(where.at.length).toBeGreaterThan(0);
    expect(where.at[0]).toMatch(/^withSql .*run-logger\.spec\.ts:\d+$/u);
  });

  it('never keeps the message, which the stack text starts with', () => {
    const logged = JSON.stringify(errorWhere(withSql()));
    for (const text of ['Duplicate entry', '4111', 'INSERT', 'hunter2']) expect(logged).not.toContain(text);
  });

  it('keeps frames as paths relative to the working directory', () => {
    expect(errorWhere(withSql()).at.join('\n')).not.toContain(`${process.cwd()}/`);
  });

  it.each<[string, unknown, { type: string; code?: string; at: string[] }]>([
    ['a string thrown', 'select * from secrets', { type: 'Error', at: [] }],
    ['null thrown', null, { type: 'Error', at: [] }],
    [
      'a name carrying text',
      { name: 'Error: SELECT password FROM users', stack: 'x' },
      { type: 'Error', at: [] },
    ],
    ['a code carrying a secret', { name: 'Error', code: 'pw=hunter2', stack: '' }, { type: 'Error', at: [] }],
    [
      'a stack whose frames hold no path',
      {
        name: 'TypeError',
        stack: 'TypeError: x\n    at node:internal/streams:1:1\n    at async Promise.all (index 0)',
      },
      { type: 'TypeError', at: [] },
    ],
  ])('%s', (_name, error, expected) => {
    expect(errorWhere(error)).toEqual(expected);
  });
});
