import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Tests that read the project's shared folder (the WSDL corpus, beside the repository). Without
 * it they fail under CI=true, and are left out with a message elsewhere.
 */
const NEEDS_SHARED = [
  'test/e2e/soap/**',
  'test/unit/runtime/openapi/soap-openapi.test.ts',
  'test/unit/runtime/services/soap/wsdl/wsdl-loader.test.ts',
];
const sharedDir = process.env.PORTICO_SHARED_DIR ?? path.resolve(import.meta.dirname, '..', 'shared');
const sharedMissing = !fs.existsSync(path.join(sharedDir, 'wsdl-corpus')) && process.env.CI !== 'true';
if (sharedMissing) {
  console.warn(`shared folder not found at ${sharedDir}: skipping the SOAP peer and corpus tests (set PORTICO_SHARED_DIR).`);
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(sharedMissing ? NEEDS_SHARED : [])],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: keep workers few so e2e servers and database tests do not starve each other.
    maxWorkers: 2,
  },
});
