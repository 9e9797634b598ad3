/** The system-service suites with the system database on the machine's PostgreSQL server. */
import { describe } from 'vitest';
import { requireService } from '#test/helpers/require-service.js';
import { defineSystemSuites } from './system-suite/system-suite.js';

describe.skipIf(!(await requireService('postgres')))('system service on a PostgreSQL system database', () =>
  defineSystemSuites('postgres'),
);
