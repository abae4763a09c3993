import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_ALLOWED_FUNCTIONS, FUNCTION_CATALOG, renderFunctionCatalog } from './function-catalog';
import { parseMysqlToolsConfig } from './mysql-tools-config';

const DOC = join(__dirname, '../../../../docs/query-mysql-functions.md');

describe('function catalog', () => {
  it('is what docs/query-mysql-functions.md documents (regenerate: npm run docs:generate)', () => {
    expect(readFileSync(DOC, 'utf8')).toBe(renderFunctionCatalog());
  });

  it('lists every default function in the documentation, each once', () => {
    const doc = renderFunctionCatalog();
    for (const name of FUNCTION_CATALOG.keys()) expect(doc.split(`| \`${name}\` |`)).toHaveLength(2);
    expect(doc).toContain(`## Default list (${DEFAULT_ALLOWED_FUNCTIONS.length} functions)`);
    expect(DEFAULT_ALLOWED_FUNCTIONS).toContain('COUNT');
    expect(DEFAULT_ALLOWED_FUNCTIONS).not.toContain('SLEEP');
  });

  it('models every function whose output size is set by a string argument by that argument, not as scalar', () => {
    // Audited against MariaDB 10.11 with 1000-character strings in every argument position: only these can
    // return more than their text argument (a format, count or length sets the size; passthrough ones such
    // as IFNULL never do), and every `scalar` entry stayed under about 310 characters.
    const followsAnArgument = [
      'DATE_FORMAT',
      'TIME_FORMAT',
      'FROM_UNIXTIME',
      'REPEAT',
      'LPAD',
      'RPAD',
      'SPACE',
      'REPLACE',
      'CONCAT',
      'CONCAT_WS',
      'INSERT',
    ];
    expect(followsAnArgument.filter((name) => FUNCTION_CATALOG.get(name)?.cost === 'scalar')).toEqual([]);
    expect(
      ['DATE_FORMAT', 'TIME_FORMAT', 'FROM_UNIXTIME'].map((name) => FUNCTION_CATALOG.get(name)?.cost),
    ).toEqual(['format', 'format', 'format']);
  });

  const file = (functions: string) => `harness:
  mysql-tools:
    data-sources:
      orders:
        url: mysql://db:3306/shop
        username: \${U}
        password: \${P}
        default-schema: shop
        allowed-functions: [${functions}]
        allowed-schemas:
          shop:
            tables:
              t:
                columns: [a]
`;

  it('accepts allowed-functions from the catalog, in any case', () => {
    const [source] = parseMysqlToolsConfig(file('count, Repeat, SLEEP'), 'f.yaml', { U: 'u', P: 'p' });
    expect([...source.functions]).toEqual(['COUNT', 'REPEAT', 'SLEEP']);
  });

  it('stops start-up naming an allowed function without a cost model', () => {
    expect(() =>
      parseMysqlToolsConfig(file('COUNT, BENCHMARK, LOAD_FILE'), 'f.yaml', { U: 'u', P: 'p' }),
    ).toThrow(
      'f.yaml: harness.mysql-tools.data-sources.orders.allowed-functions: BENCHMARK, LOAD_FILE have no cost model',
    );
  });
});
