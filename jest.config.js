/** Fast unit specs beside the code, and four kinds of tests against real MariaDB, Redis and the stub LLM. */
const moduleNameMapper = {
  '^@app/(contracts|config|metrics|auth|trace|harness|tools|guards|notify|chat|alerts)$':
    '<rootDir>/libs/$1/src',
  '^@app/migrations$': '<rootDir>/migrations',
  '^@test/support/(.*)$': '<rootDir>/test/support/$1',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
};

// The suite's one time scale (test/support/test-timeouts.ts derives every other deadline from it): 30 s
// per test on an idle machine; TEST_TIMEOUT_SCALE raises all deadlines together on a slower one.
const rawScale = process.env.TEST_TIMEOUT_SCALE || '1';
const scale = Number(rawScale);
if (!Number.isFinite(scale) || scale < 1) {
  throw new Error(`TEST_TIMEOUT_SCALE must be a number of at least 1, got "${rawScale}"`);
}
const testTimeout = Math.round(30000 * scale);
// Read by the test files (Jest starts its workers after loading this file, with this environment).
process.env.TEST_TIMEOUT_SCALE = String(scale);
process.env.TEST_TIMEOUT_MS = String(testTimeout);

module.exports = {
  testTimeout,
  // A test file's module registry (a whole Nest app, LangChain, TypeORM) stays reachable from Node's
  // shared core modules after the file ends, so one process running every file grows to GiBs of heap and
  // slows on GC. A worker whose heap passes this after a file is replaced; jest then never runs in band.
  workerIdleMemoryLimit: '1GB',
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
    // Tests against real services, by kind (docs/contributing.md "Tests and lint"); one global setup
    // starts the services and migrates one database per jest worker, which each file is pointed at.
    ...[
      // medium: libs wired in process against real MariaDB/Redis (and the stub LLM), no HTTP.
      ['medium', 'medium-spec'],
      // e2e: the Nest app booted in process, driven over HTTP.
      ['e2e', 'e2e-spec'],
      // browser: the web UI in Debian's Chromium through playwright-core.
      ['browser', 'browser-spec'],
      // process: the built service or a CLI started as its own process (replicas, demo, CLIs, recipes).
      ['process', 'process-spec'],
    ].map(([kind, suffix]) => ({
      displayName: kind,
      rootDir: __dirname,
      testEnvironment: 'node',
      testMatch: [`<rootDir>/test/${kind}/**/*.${suffix}.ts`],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFiles: ['<rootDir>/test/support/worker-database.ts'],
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      moduleNameMapper,
      transform,
    })),
  ],
};
