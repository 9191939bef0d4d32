/** Tests run against a real database: SQLite by default, MySQL/MariaDB with DB_CLIENT=mysql. */
module.exports = {
  testEnvironment: 'node',
  // ts-jest transpiles only (tsconfig's isolatedModules); `npm run typecheck` checks the types
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/tests/**/*.test.ts'],
  globalSetup: '<rootDir>/tests/global-setup.ts',
  globalTeardown: '<rootDir>/tests/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/tests/helpers/contract-setup.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
};
