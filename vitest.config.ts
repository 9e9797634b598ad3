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

const exclude = ['**/node_modules/**', ...(sharedMissing ? NEEDS_SHARED : [])];
/**
 * Unit tests that need a fresh worker: one mocks modules (in a shared worker the module may be
 * loaded already, unmocked), one measures the young generation from its starting size.
 */
const ISOLATED = ['test/unit/generator/pipeline.test.ts', 'test/unit/runtime/http/idle-memory.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: keep workers few so e2e servers and database tests do not starve each other.
    maxWorkers: 2,
    projects: [
      // Everything but the unit tests, each file in a fresh worker. Runs beside `unit`, on the same two workers.
      {
        extends: true,
        test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [...exclude, 'test/unit/**'] },
      },
      // Unit tests share workers and their loaded modules: a fresh worker per file cost 62 s of CPU
      // for these 103 files, 24 s shared (fifteenth session). Queued after the integration files.
      // A file that mocks modules (vi.mock) or measures the heap needs a fresh worker: `isolated-unit`.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: [...exclude, ...ISOLATED], isolate: false } },
      { extends: true, test: { name: 'isolated-unit', include: ISOLATED, exclude } },
    ],
  },
});
