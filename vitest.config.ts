import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: keep workers few so e2e servers and database tests do not starve each other.
    maxWorkers: 2,
  },
});
