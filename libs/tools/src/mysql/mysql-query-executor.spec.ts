import {
  bindParams,
  BUSINESS_SQL_MODE,
  cellBytes,
  sessionProblems,
  sqlModeIsPinned,
  uniqueColumnNames,
} from './mysql-query-executor';

describe('sqlModeIsPinned', () => {
  it.each([
    [BUSINESS_SQL_MODE, true],
    ['NO_ENGINE_SUBSTITUTION,STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO', true],
    ['strict_trans_tables,error_for_division_by_zero,no_engine_substitution', true],
    [`${BUSINESS_SQL_MODE},ANSI_QUOTES`, false],
    [`${BUSINESS_SQL_MODE},NO_BACKSLASH_ESCAPES`, false],
    [`${BUSINESS_SQL_MODE},PIPES_AS_CONCAT`, false],
    ['ANSI', false],
    ['STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO', false],
    ['', false],
    [null, false],
    [undefined, false],
  ])('the server reporting %p is pinned: %p', (reported, pinned) => {
    expect(sqlModeIsPinned(reported)).toBe(pinned);
  });

  it('pins no mode that changes how checked SQL reads', () => {
    for (const mode of [
      'ANSI',
      'ANSI_QUOTES',
      'PIPES_AS_CONCAT',
      'NO_BACKSLASH_ESCAPES',
      'HIGH_NOT_PRECEDENCE',
      'IGNORE_SPACE',
    ])
      expect(BUSINESS_SQL_MODE.split(',')).not.toContain(mode);
  });
});

describe('sessionProblems', () => {
  const pinned = {
    sql_mode: BUSINESS_SQL_MODE,
    character_set_client: 'utf8mb4',
    character_set_connection: 'utf8mb4',
    character_set_results: 'utf8mb4',
  };

  it('accepts a session pinned on every leg', () => {
    expect(sessionProblems(pinned)).toEqual([]);
    expect(sessionProblems({ ...pinned, character_set_results: 'UTF8MB4' })).toEqual([]);
  });

  it.each([
    [
      { character_set_client: 'gbk' },
      'character_set_client is gbk, not utf8mb4 (does the server run with skip-character-set-client-handshake?)',
    ],
    [{ character_set_connection: 'big5' }, 'character_set_connection is big5, not utf8mb4'],
    [{ character_set_results: null }, 'character_set_results is NULL, not utf8mb4'],
    [{ character_set_results: 'utf8mb3' }, 'character_set_results is utf8mb3, not utf8mb4'],
    [{ character_set_client: 'sjis' }, 'character_set_client is sjis'],
    [
      { sql_mode: `${BUSINESS_SQL_MODE},NO_BACKSLASH_ESCAPES` },
      `sql_mode is '${BUSINESS_SQL_MODE},NO_BACKSLASH_ESCAPES', not the pinned '${BUSINESS_SQL_MODE}'`,
    ],
  ])('names the setting that is off: %p', (change, problem) => {
    const problems = sessionProblems({ ...pinned, ...change });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });
});

describe('bindParams', () => {
  it.each([
    ['SELECT `a` FROM `t` WHERE `a` = ?', ['x'], "SELECT `a` FROM `t` WHERE `a` = 'x'"],
    [
      'SELECT `a` FROM `t` WHERE `a` = ?',
      ["it's \\ \u0000"],
      "SELECT `a` FROM `t` WHERE `a` = 'it\\'s \\\\ \\0'",
    ],
    [
      'SELECT `a` FROM `t` WHERE `a` = ? AND `b` = ?',
      [1.5, -2],
      'SELECT `a` FROM `t` WHERE `a` = 1.5 AND `b` = (-2)',
    ],
    ['SELECT `a` FROM `t` WHERE `a` - ? > 0', [-1], 'SELECT `a` FROM `t` WHERE `a` - (-1) > 0'],
    [
      'SELECT `a` FROM `t` WHERE `a` IS ? OR `b` = ?',
      [null, true],
      'SELECT `a` FROM `t` WHERE `a` IS NULL OR `b` = TRUE',
    ],
    [
      "SELECT `a` FROM `t` WHERE `a` = 'a?b' AND `b` = ?",
      ['x'],
      "SELECT `a` FROM `t` WHERE `a` = 'a?b' AND `b` = 'x'",
    ],
    [
      "SELECT `a` FROM `t` WHERE `a` = 'it''s?\\'?' AND `b` = ?",
      [1],
      "SELECT `a` FROM `t` WHERE `a` = 'it''s?\\'?' AND `b` = 1",
    ],
    ['SELECT `a?` FROM `t``?` WHERE `a` = ?', [2], 'SELECT `a?` FROM `t``?` WHERE `a` = 2'],
    ['SELECT "?" AS `x` FROM `t` WHERE `a` = ?', [3], 'SELECT "?" AS `x` FROM `t` WHERE `a` = 3'],
    ['SELECT `a` FROM `t`', [], 'SELECT `a` FROM `t`'],
  ])('binds %s', (sql, params, bound) => {
    expect(bindParams(sql, params)).toBe(bound);
  });

  it('keeps a bound text a single literal, whatever it contains', () => {
    const hostile = "x' OR 1=1 UNION SELECT `card_number` FROM `t` -- ";
    const bound = bindParams("SELECT `a` FROM `t` WHERE `a` = 'p?q' AND `b` = ?", [hostile]);
    expect(bound).toBe(
      "SELECT `a` FROM `t` WHERE `a` = 'p?q' AND `b` = 'x\\' OR 1=1 UNION SELECT `card_number` FROM `t` -- '",
    );
  });

  it.each([
    ['SELECT ? , ?', [1]],
    ['SELECT ?', [1, 2]],
    ["SELECT 'open ?", []],
    ['SELECT ?', [Number.NaN]],
    ['SELECT ?', [Number.POSITIVE_INFINITY]],
    ['SELECT ?', [{ a: 1 }]],
    ['SELECT ?', [[1]]],
  ])('refuses %s with %p', (sql, params) => {
    expect(() => bindParams(sql, params)).toThrow(TypeError);
  });
});

describe('uniqueColumnNames', () => {
  it.each([
    [[{ name: 'order_id', table: 'o' }], ['order_id']],
    [
      [
        { name: 'order_id', table: 'o' },
        { name: 'status', table: 'o' },
        { name: 'status', table: 'p' },
      ],
      ['order_id', 'o.status', 'p.status'],
    ],
    [
      [
        { name: 'n', table: '' },
        { name: 'n', table: '' },
        { name: 'n', table: '' },
      ],
      ['n', 'n#2', 'n#3'],
    ],
    [
      [
        { name: 'p.status', table: '' },
        { name: 'status', table: 'p' },
        { name: 'status', table: 'p' },
      ],
      ['p.status', 'p.status#2', 'p.status#3'],
    ],
  ])('keeps every column of %p', (fields, names) => {
    expect(uniqueColumnNames(fields)).toEqual(names);
  });
});

describe('cellBytes', () => {
  it.each([
    ['abc', 3],
    ['汉字', 6],
    [Buffer.alloc(10), 10],
    [42, 8],
    [null, 8],
  ])('%p costs %p bytes', (value, bytes) => {
    expect(cellBytes(value)).toBe(bytes);
  });
});
