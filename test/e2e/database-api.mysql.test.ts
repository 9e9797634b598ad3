/** The database API black-box suite on the machine's MariaDB/MySQL server. */
import { describe } from 'vitest';
import { requireService } from '#test/helpers/require-service.js';
import { defineDatabaseApiSuite } from './database-api/database-api.suite.js';

describe.skipIf(!(await requireService('mysql')))('the database API on MariaDB/MySQL', () => defineDatabaseApiSuite('mysql'));
