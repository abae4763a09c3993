// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const LIB_IMPORT_PATTERNS = [
  { group: ['@app/*/*'], message: 'Import a lib only through its public index: @app/<lib>.' },
  {
    group: ['**/libs/*/src/**', '../../libs/**'],
    message: 'Import other libs as @app/<lib>, never by path.',
  },
];

/**
 * Each lib and the libs it may import: only those below it in the graph. `contracts` (the wire contract,
 * types and code lists only) is the ground under everything, the web UI included.
 */
const LIBS_BELOW = {
  contracts: [],
  config: ['contracts'],
  // The service's own Prometheus metrics: counted by every lib above, so it stands on the contract alone.
  metrics: ['contracts'],
  auth: ['config', 'contracts'],
  // The schema's migrations live at the repository root (migrations/), owned by trace alone.
  trace: ['auth', 'metrics', 'config', 'contracts', 'migrations'],
  harness: ['trace', 'auth', 'metrics', 'config', 'contracts'],
  tools: ['harness', 'trace', 'auth', 'metrics', 'config', 'contracts'],
  guards: ['harness', 'trace', 'auth', 'metrics', 'config', 'contracts'],
  // Outbound notifications of finished runs: chat (and the alert ingestion) hand it their runs.
  notify: ['trace', 'auth', 'metrics', 'config', 'contracts'],
  chat: ['notify', 'tools', 'guards', 'harness', 'trace', 'auth', 'metrics', 'config', 'contracts'],
  alerts: ['chat', 'notify', 'tools', 'guards', 'harness', 'trace', 'auth', 'metrics', 'config', 'contracts'],
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'bench/results/**',
      '*.js',
      '*.mjs',
      // The require hook that runs the docs generator from the sources, before any build (outside the TS project).
      'scripts/*.js',
      // Plain-JS test servers started as their own processes without a build (outside the TS project).
      'test/support/**/*.mjs',
      // Deliberately broken files that test/support/lint-gate.spec.ts lints on purpose.
      'test/fixtures/lint-gate/**',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { patterns: LIB_IMPORT_PATTERNS }],
    },
  },
  // The lib graph, one way: alerts -> chat -> tools, guards -> harness -> trace -> auth -> config -> contracts;
  // chat -> notify -> trace; metrics -> contracts beside config.
  // A lib may import only the libs below it (tools and guards are peers and do not import each other).
  // Specs beside the code may also use the shared test kit (@test/support); the code itself may not.
  ...Object.entries(LIBS_BELOW).flatMap(([lib, below]) => {
    const graph = {
      group: ['@app/*', ...below.map((allowed) => `!@app/${allowed}`)],
      message: below.length
        ? `libs/${lib} may import only ${below.map((l) => `@app/${l}`).join(', ')}: the lib graph runs one way.`
        : `libs/${lib} is the ground: it may import no other lib.`,
    };
    const testKit = { group: ['@test/*'], message: 'Only specs use the test kit (@test/support).' };
    return [
      {
        files: [`libs/${lib}/**/*.ts`],
        ignores: ['**/*.spec.ts'],
        rules: { 'no-restricted-imports': ['error', { patterns: [...LIB_IMPORT_PATTERNS, graph, testKit] }] },
      },
      {
        files: [`libs/${lib}/**/*.spec.ts`],
        rules: { 'no-restricted-imports': ['error', { patterns: [...LIB_IMPORT_PATTERNS, graph] }] },
      },
    ];
  }),
  {
    // The web UI is an HTTP client: of the server's code it shares only the wire contract.
    files: ['apps/web/**/*.ts', 'apps/web/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...LIB_IMPORT_PATTERNS,
            {
              group: ['@app/*', '!@app/contracts'],
              message: 'apps/web may import only @app/contracts: the UI talks to the server over HTTP.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests may reach into the app's composition root to boot it.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  prettier,
);
