/** Two projects: unit specs beside the code, e2e specs against the real application. */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: __dirname,
      roots: ['<rootDir>/src'],
      testRegex: '\\.spec\\.ts$',
      transform: { '^.+\\.ts$': tsJest },
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
    },
  ],
};
