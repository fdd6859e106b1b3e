/** Two projects: unit specs beside the code, e2e specs against the real application. */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];
module.exports = {
  // Hooks start whole applications (migrations, Redis, a geo and a data-centre table): on a loaded 2-core machine a
  // beforeAll can pass Jest's default 5 s. This bounds hung tests, it is not a speed assertion.
  testTimeout: 30_000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: __dirname,
      // scripts/: the start-up helpers (build-if-stale.js), plain JavaScript run before any build
      roots: ['<rootDir>/src', '<rootDir>/scripts'],
      testRegex: '\\.spec\\.ts$',
      transform: { '^.+\\.ts$': tsJest },
      setupFiles: ['<rootDir>/test/setup-env.ts'],
    },
    {
      // The SDK's own specs (sdk/test/), on its sources: the SDK imports its modules with the `.js` extension.
      displayName: 'sdk',
      testEnvironment: 'node',
      rootDir: __dirname,
      roots: ['<rootDir>/sdk/test'],
      testRegex: '\\.spec\\.ts$',
      transform: { '^.+\\.ts$': tsJest },
      moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
      setupFiles: ['<rootDir>/test/setup-env.ts'],
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      rootDir: __dirname,
      roots: ['<rootDir>/test'],
      testRegex: '\\.e2e-spec\\.ts$',
      transform: { '^.+\\.ts$': tsJest },
      setupFiles: ['<rootDir>/test/setup-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/worker-database.ts', '<rootDir>/test/support/flush-cluster.ts'],
      // The sdk-* specs drive the built SDK: built here when its sources changed.
      globalSetup: '<rootDir>/test/support/sdk-build.js',
    },
  ],
};
