/**
 * The reliability suite (several processes, faults) on a private MariaDB and Redis it starts itself. Apart from the
 * e2e project because it needs mariadbd, mariadb-install-db and redis-server on the PATH and takes minutes:
 *   node node_modules/jest/bin/jest.js --config test/reliability/jest.config.js
 */
const path = require('node:path');

module.exports = {
  displayName: 'reliability',
  rootDir: path.join(__dirname, '..', '..'),
  testEnvironment: 'node',
  roots: ['<rootDir>/test/reliability'],
  testRegex: '\\.reliability\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  maxWorkers: 1,
};
