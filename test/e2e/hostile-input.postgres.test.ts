/** The hostile-input suite on the machine's PostgreSQL server. */
import { describe } from 'vitest';
import { requireService } from '#test/helpers/require-service.js';
import { defineHostileInputSuite } from './hostile-input/hostile-input.suite.js';

describe.skipIf(!(await requireService('postgres')))('hostile input on PostgreSQL', () => defineHostileInputSuite('postgres'));
