/**
 * The system-service suites (every e2e file whose servers build a system database), run again
 * with the system database on the machine's PostgreSQL or MariaDB: each test file's servers get
 * a random-named database of their own. Each suite file keeps its hooks inside its own describe.
 */
import { describe } from 'vitest';
import { useSystemDatabase } from '#test/helpers/platform-fixtures.js';
import type { ExternalDatabase } from '#test/helpers/require-service.js';

export const SYSTEM_SUITES = [
  'system-resources',
  'system-bad-input',
  'admin-session',
  'user-sessions',
  'credentials-and-cors',
  'live-services',
  'role-access',
  'access-matrix',
  'admin-console',
  'rate-limits',
  'restricted-admins',
  'console-resources',
] as const;

export function defineSystemSuites(kind: ExternalDatabase): void {
  useSystemDatabase(kind);
  for (const suite of SYSTEM_SUITES) {
    describe(suite, async () => {
      await import(`../${suite}.test.ts`);
    });
  }
}
