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
