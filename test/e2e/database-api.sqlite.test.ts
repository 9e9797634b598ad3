/** The database API black-box suite on SQLite (embedded). */
import { describe } from 'vitest';
import { defineDatabaseApiSuite } from './database-api/database-api.suite.js';

describe('the database API on SQLite', () => defineDatabaseApiSuite('sqlite'));
