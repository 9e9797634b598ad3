import { describe, expect, it } from 'vitest';
import { lostWhileRunning as mysqlLost } from '#runtime/services/sql/dialects/mysql/mysql-errors.js';
import { lostWhileRunning as postgresLost } from '#runtime/services/sql/dialects/postgres/postgres-errors.js';
import { mayStore } from '#runtime/services/sql/dialects/unknown-outcome.js';

describe('a write whose connection is lost', () => {
  it.each<[string, boolean]>([
    ['insert into "item" ("id") values ($1)', true],
    ['update `item` set `name` = ? where `id` = ?', true],
    ['  delete from item', true],
    ['call restock(?)', true],
    ['commit', true],
    ['select * from item', false],
    ['SELECT 1', false],
    ['begin', false],
    ['rollback', false],
    ["set session sql_mode = 'x'", false],
  ])('%s may have stored something: %s', (text, stores) => {
    expect(mayStore(text)).toBe(stores);
  });

  it('is told from a connection that was never had or was broken before the statement (PostgreSQL)', () => {
    expect(postgresLost(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(postgresLost(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(postgresLost(new Error('timeout exceeded when trying to connect'))).toBe(false);
    expect(postgresLost(new Error('Client has encountered a connection error and is not queryable'))).toBe(false);
    expect(postgresLost(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(false);
  });

  it('is told from a connection that was never had or was closed before the statement (MySQL)', () => {
    const fatal = (message: string, code?: string) => Object.assign(new Error(message), { fatal: true, code });
    expect(mysqlLost(fatal('Connection lost: The server closed the connection.', 'PROTOCOL_CONNECTION_LOST'))).toBe(true);
    expect(mysqlLost(fatal("Can't add new command when connection is in closed state"))).toBe(false);
    expect(mysqlLost(fatal('connect ECONNREFUSED', 'ECONNREFUSED'))).toBe(false);
  });
});
