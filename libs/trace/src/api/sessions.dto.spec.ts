import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { PageQueryDto } from './sessions.dto';

describe('PageQueryDto', () => {
  const errors = (query: Record<string, string>) =>
    validateSync(plainToInstance(PageQueryDto, query)).map((error) => error.property);

  it.each([
    [{ offset: '1e21' }, ['offset']],
    [{ offset: '18446744073709551616' }, ['offset']],
    [{ limit: '1e21' }, ['limit']],
    [{ limit: '18446744073709551616' }, ['limit']],
    [{ offset: String(Number.MAX_SAFE_INTEGER) }, []],
    [{ limit: '100', offset: '40' }, []],
  ])('%j -> invalid %j', (query, invalid) => {
    expect(errors(query)).toEqual(invalid);
  });
});
