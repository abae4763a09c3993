import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CursorPageQueryDto } from './sessions.dto';

describe('CursorPageQueryDto', () => {
  const errors = (query: Record<string, string>) =>
    validateSync(plainToInstance(CursorPageQueryDto, query)).map((error) => error.property);

  it.each([
    [{ limit: '1e21' }, ['limit']],
    [{ limit: '18446744073709551616' }, ['limit']],
    [{ limit: '0' }, ['limit']],
    [{ cursor: 'a'.repeat(201) }, ['cursor']],
    [{ limit: '100', cursor: 'abc' }, []],
    [{}, []],
  ])('%j -> invalid %j', (query, invalid) => {
    expect(errors(query)).toEqual(invalid);
  });
});
