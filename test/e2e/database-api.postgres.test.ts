/** The database API black-box suite on the machine's PostgreSQL server. */
import { describe } from 'vitest';
import { requireService } from '#test/helpers/require-service.js';
import { defineDatabaseApiSuite } from './database-api/database-api.suite.js';

describe.skipIf(!(await requireService('postgres')))('the database API on PostgreSQL', () => defineDatabaseApiSuite('postgres'));
