/** The system-service suites with the system database on the machine's MariaDB/MySQL server. */
import { describe } from 'vitest';
import { requireService } from '#test/helpers/require-service.js';
import { defineSystemSuites } from './system-suite/system-suite.js';

describe.skipIf(!(await requireService('mysql')))('system service on a MariaDB/MySQL system database', () => defineSystemSuites('mysql'));
