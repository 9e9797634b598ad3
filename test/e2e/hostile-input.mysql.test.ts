/** The hostile-input suite on the machine's MariaDB server. */
import { describe } from 'vitest';
import { requireService } from '#test/helpers/require-service.js';
import { defineHostileInputSuite } from './hostile-input/hostile-input.suite.js';

describe.skipIf(!(await requireService('mysql')))('hostile input on MariaDB', () => defineHostileInputSuite('mysql'));
