import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { replaceMetricsReference } from '@app/metrics';
import { renderFunctionCatalog } from '@app/tools';
import { AppModule } from '../app.module';
import { renderBackendsReference } from './reference/backends-reference';
import { renderCodesReference } from './reference/codes-reference';
import { renderConfigurationReference } from './reference/configuration-reference';

/**
 * `npm run docs:generate` writes the generated reference pages; `--check` (run by `npm run lint`) exits 1
 * naming every page that differs from what the code generates. Runs from the sources
 * (scripts/ts-register.js), so lint needs no build.
 */
const ROOT = join(__dirname, '../../../..');

// Environment classes register themselves on import: the application module reaches every lib's.
void AppModule;

const PAGES: { path: string; render: () => string; prettier: boolean }[] = [
  { path: 'docs/configuration-reference.md', render: renderConfigurationReference, prettier: true },
  { path: 'docs/codes.md', render: renderCodesReference, prettier: true },
  { path: 'docs/backends.md', render: renderBackendsReference, prettier: true },
  // Listed in .prettierignore: its tables are kept exactly as the catalog renders them.
  { path: 'docs/query-mysql-functions.md', render: renderFunctionCatalog, prettier: false },
  // Hand-written around its generated reference section (between the markers the catalog renders).
  {
    path: 'docs/metrics.md',
    render: () => replaceMetricsReference(current('docs/metrics.md') ?? ''),
    prettier: false,
  },
];

async function generated(page: (typeof PAGES)[number]): Promise<string> {
  const text = page.render();
  if (!page.prettier) return text;
  const file = join(ROOT, page.path);
  const options = (await resolveConfig(file)) ?? {};
  return format(text, { ...options, filepath: file });
}

function current(path: string): string | null {
  try {
    return readFileSync(join(ROOT, path), 'utf8');
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  for (const page of PAGES) {
    const text = await generated(page);
    if (current(page.path) === text) continue;
    if (check) stale.push(page.path);
    else {
      writeFileSync(join(ROOT, page.path), text);
      process.stdout.write(`wrote ${page.path}\n`);
    }
  }
  if (stale.length > 0) {
    process.stderr.write(
      `Generated pages are stale (run \`npm run docs:generate\` and commit them):\n  ${stale.join('\n  ')}\n`,
    );
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `docs generation failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(2);
  },
);
