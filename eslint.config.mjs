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

/** Each lib and the libs it may import: only those below it in the graph. */
const LIBS_BELOW = {
  config: [],
  auth: ['config'],
  trace: ['auth', 'config'],
  harness: ['trace', 'auth', 'config'],
  tools: ['harness', 'trace', 'auth', 'config'],
  guards: ['harness', 'trace', 'auth', 'config'],
  chat: ['tools', 'guards', 'harness', 'trace', 'auth', 'config'],
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
  // The lib graph, one way: chat -> tools, guards -> harness -> trace -> auth -> config. A lib may
  // import only the libs below it (tools and guards are peers and do not import each other).
  ...Object.entries(LIBS_BELOW).map(([lib, below]) => ({
    files: [`libs/${lib}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...LIB_IMPORT_PATTERNS,
            {
              group: ['@app/*', ...below.map((allowed) => `!@app/${allowed}`)],
              message: below.length
                ? `libs/${lib} may import only ${below.map((l) => `@app/${l}`).join(', ')}: the lib graph runs one way.`
                : `libs/${lib} is the ground: it may import no other lib.`,
            },
          ],
        },
      ],
    },
  })),
  {
    // Tests may reach into the app's composition root to boot it.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  prettier,
);
