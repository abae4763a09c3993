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
  {
    // Auth sits below every lib that guards a route (chat, tools, trace): it may use only config.
    files: ['libs/auth/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...LIB_IMPORT_PATTERNS,
            {
              group: ['@app/*', '!@app/config'],
              message: 'libs/auth may import only @app/config; the other libs import auth.',
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
