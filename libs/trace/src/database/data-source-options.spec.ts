import type { DataSource } from 'typeorm';
import { refuseNoBackslashEscapes } from './data-source-options';

const reporting = (mode: string | null) =>
  ({ query: () => Promise.resolve([{ mode }]) }) as unknown as DataSource;

describe('refuseNoBackslashEscapes', () => {
  it.each([
    [
      'MariaDB 10.11 default',
      'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION',
    ],
    ['empty', ''],
    ['unknown', null],
    ['a mode that only contains the words', 'NO_BACKSLASH_ESCAPES_X'],
  ])('accepts a server whose sql_mode is %s', async (_name, mode) => {
    await expect(refuseNoBackslashEscapes(reporting(mode))).resolves.toBeUndefined();
  });

  it.each([
    ['alone', 'NO_BACKSLASH_ESCAPES'],
    ['among others, lower case', 'ansi_quotes,no_backslash_escapes,strict_trans_tables'],
  ])('refuses NO_BACKSLASH_ESCAPES %s, naming the setting', async (_name, mode) => {
    await expect(refuseNoBackslashEscapes(reporting(mode))).rejects.toThrow(/sql_mode NO_BACKSLASH_ESCAPES/);
  });
});
