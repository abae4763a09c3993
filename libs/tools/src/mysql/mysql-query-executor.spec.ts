import { BUSINESS_SQL_MODE, sqlModeIsPinned } from './mysql-query-executor';

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
