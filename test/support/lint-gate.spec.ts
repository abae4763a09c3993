import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * The CI gate: `npm test` runs `npm run lint` (Prettier, ESLint with type-aware rules, tsc over sources
 * and specs) before Jest. ts-jest only transpiles, so without this gate a spec with a type error or a
 * floating promise would pass. The fixtures in test/fixtures/lint-gate are excluded from the normal lint
 * run and linted here with the project's own tsconfig (extended) and eslint.config.mjs.
 */
const ROOT = resolve(__dirname, '../..');
const FIXTURE = 'test/fixtures/lint-gate';
/** tsc and eslint start in seconds; the margin is for a loaded CI machine. */
const SPAWN_TIMEOUT_MS = 90_000;

function run(bin: string, args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, bin), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: SPAWN_TIMEOUT_MS,
  });
}

function tsconfigFiles(project: string): string[] {
  const path = join(ROOT, project);
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${project}`);
  return parsed.fileNames.map((file) => resolve(file));
}

/**
 * The lib graph rule (no-restricted-imports) is not type-aware, so a probe is linted as text under the
 * path it would have, with only that rule running and the project's own eslint.config.mjs.
 */
const GRAPH_PROBE = `
import { ESLint } from 'eslint';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const eslint = new ESLint({
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
});
const results = [];
for (const probe of JSON.parse(input)) {
  const [result] = await eslint.lintText(probe.code, { filePath: probe.filePath });
  results.push({ filePath: probe.filePath, messages: result.messages.map((m) => m.message) });
}
process.stdout.write(JSON.stringify(results));
`;

function lintImports(probes: { filePath: string; code: string }[]) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', GRAPH_PROBE], {
    cwd: ROOT,
    encoding: 'utf8',
    input: JSON.stringify(probes),
    timeout: SPAWN_TIMEOUT_MS,
  });
  if (result.status !== 0) throw new Error(`eslint probe failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as { filePath: string; messages: string[] }[];
}

const importProbe = (filePath: string, lib: string) => ({
  filePath,
  code: `import * as probe from '@app/${lib}';\nexport const used = probe;\n`,
});

function trackedTypeScriptFiles(): string[] {
  const result = spawnSync('git', ['ls-files', '*.ts', '*.tsx', '*.mts', '*.cts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`git ls-files failed: ${result.stderr}`);
  return result.stdout.trim().split('\n');
}

describe('lint gate', () => {
  it('runs the lint before Jest in `npm test`, with tsc over both TypeScript projects', () => {
    const testScript = readFileSync(join(ROOT, 'scripts/test.sh'), 'utf8');
    const lintAt = testScript.indexOf('\nnpm run lint\n');
    expect(lintAt).toBeGreaterThan(-1);
    expect(lintAt).toBeLessThan(testScript.indexOf('npx jest'));
    const lint = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts.lint;
    expect(lint).toContain('prettier --check .');
    expect(lint).toContain('eslint . --max-warnings 0');
    expect(lint).toContain('tsc --noEmit -p tsconfig.json');
    expect(lint).toContain('tsc -p apps/web');
  });

  it('type-checks every TypeScript file of the repository, specs included, except the lint fixtures', () => {
    const checked = new Set([...tsconfigFiles('tsconfig.json'), ...tsconfigFiles('apps/web/tsconfig.json')]);
    const unchecked = trackedTypeScriptFiles().filter(
      (file) => !file.startsWith(`${FIXTURE}/`) && !checked.has(join(ROOT, file)),
    );
    expect(unchecked).toEqual([]);
    expect(checked.has(join(ROOT, FIXTURE, 'type-error.spec.ts'))).toBe(false);
  });

  it(
    'fails tsc on a spec with a type error',
    () => {
      const result = run('node_modules/typescript/bin/tsc', ['--noEmit', '-p', `${FIXTURE}/tsconfig.json`]);
      expect(result.status).not.toBe(0);
      const errors = result.stdout.trim().split('\n');
      expect(errors.length).toBeGreaterThan(0);
      for (const error of errors) {
        expect(error).toMatch(
          /^test\/fixtures\/lint-gate\/type-error\.spec\.ts\(8,\d+\): error TS2322: Type 'string' is not assignable to type 'number'\.$/,
        );
      }
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'fails eslint on a floating promise',
    () => {
      const result = run('node_modules/eslint/bin/eslint.js', [
        '--no-ignore',
        '--max-warnings',
        '0',
        '--format',
        'json',
        FIXTURE,
      ]);
      expect(result.status).toBe(1);
      const reports = JSON.parse(result.stdout) as {
        filePath: string;
        messages: { ruleId: string | null; line: number }[];
      }[];
      const problems = reports.flatMap((report) =>
        report.messages.map((message) => ({
          file: report.filePath.slice(ROOT.length + 1),
          rule: message.ruleId,
          line: message.line,
        })),
      );
      expect(problems).toEqual([
        {
          file: `${FIXTURE}/floating-promise.ts`,
          rule: '@typescript-eslint/no-floating-promises',
          line: 7,
        },
      ]);
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'fails eslint on an import against the lib graph, and passes one along it',
    () => {
      const results = lintImports([
        importProbe('libs/harness/src/lint-gate-probe.ts', 'chat'),
        importProbe('libs/config/src/lint-gate-probe.ts', 'trace'),
        importProbe('libs/contracts/src/lint-gate-probe.ts', 'config'),
        importProbe('libs/guards/src/lint-gate-probe.ts', 'tools'),
        importProbe('apps/web/src/lint-gate-probe.ts', 'harness'),
        importProbe('libs/harness/src/lint-gate-probe.ts', 'trace'),
        importProbe('libs/config/src/lint-gate-probe.ts', 'contracts'),
        importProbe('apps/web/src/lint-gate-probe.ts', 'contracts'),
      ]);
      expect(results.map((result) => result.messages)).toEqual([
        [expect.stringContaining("'@app/chat' import is restricted")],
        [expect.stringContaining("'@app/trace' import is restricted")],
        [expect.stringContaining('libs/contracts is the ground: it may import no other lib.')],
        [expect.stringContaining("'@app/tools' import is restricted")],
        [expect.stringContaining('apps/web may import only @app/contracts')],
        [],
        [],
        [],
      ]);
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'fails tsc -p apps/web on web code using a status code the wire contract does not have',
    () => {
      // The fixture's tsconfig extends apps/web/tsconfig.json: the web's compiler options and contract path.
      const result = run('node_modules/typescript/bin/tsc', ['-p', `${FIXTURE}/web/tsconfig.json`]);
      expect(result.status).not.toBe(0);
      const errors = result.stdout.trim().split('\n');
      expect(errors).toEqual([
        expect.stringMatching(
          /^test\/fixtures\/lint-gate\/web\/stale-status\.ts\(6,\d+\): error TS2820: Type '"REPLANNING"' is not assignable to type /,
        ),
        expect.stringMatching(
          /^test\/fixtures\/lint-gate\/web\/stale-status\.ts\(8,\d+\): error TS2740: .* is missing the following properties/,
        ),
      ]);
    },
    SPAWN_TIMEOUT_MS,
  );

  it('has no relative import leaving its lib or the web app (other libs only as @app/<lib>)', () => {
    const crossings = trackedTypeScriptFiles()
      .filter((file) => /^(libs\/[^/]+|apps\/web)\//.test(file))
      .flatMap((file) => {
        const home = /^(libs\/[^/]+|apps\/web)\//.exec(file)![1];
        const source = ts.createSourceFile(
          file,
          readFileSync(join(ROOT, file), 'utf8'),
          ts.ScriptTarget.ES2022,
        );
        return source.statements
          .filter(
            (statement): statement is ts.ImportDeclaration | ts.ExportDeclaration =>
              (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
              statement.moduleSpecifier !== undefined &&
              ts.isStringLiteral(statement.moduleSpecifier),
          )
          .map((statement) => (statement.moduleSpecifier as ts.StringLiteral).text)
          .filter((specifier) => specifier.startsWith('.'))
          .filter((specifier) => relative(home, join(dirname(file), specifier)).startsWith('..'))
          .map((specifier) => `${file}: ${specifier}`);
      });
    expect(crossings).toEqual([]);
  });
});
