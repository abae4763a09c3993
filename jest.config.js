/** Two projects: fast unit specs beside the code, and e2e tests against real MariaDB, Redis and the stub LLM. */
const moduleNameMapper = {
  '^@app/(contracts|config|auth|trace|harness|tools|guards|chat)$': '<rootDir>/libs/$1/src',
  '^@app/migrations$': '<rootDir>/migrations',
  '^@test/support/(.*)$': '<rootDir>/test/support/$1',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
};

module.exports = {
  testTimeout: 30000,
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testEnvironment: 'node',
      testMatch: [
        '<rootDir>/apps/**/*.spec.ts',
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/test/support/**/*.spec.ts',
        '<rootDir>/eval/**/*.spec.ts',
      ],
      moduleNameMapper,
      transform,
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      moduleNameMapper,
      transform,
    },
  ],
};
