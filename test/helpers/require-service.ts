/**
 * Tests that need the machine's PostgreSQL or MariaDB/MySQL server: whether it is reachable, and
 * a database of their own with a random name, dropped afterwards.
 *
 * When a server is unreachable the tests fail under CI=true and are skipped (with a message on
 * stderr) otherwise. Override the servers with PORTICO_TEST_POSTGRES_URL / PORTICO_TEST_MYSQL_URL.
 */
import crypto from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';

export type ExternalDatabase = 'postgres' | 'mysql';

const DEFAULT_URLS: Record<ExternalDatabase, string> = {
  postgres: 'postgres://postgres@127.0.0.1:5432/test',
  mysql: 'mysql://root@127.0.0.1:3306/test',
};

const LABELS: Record<ExternalDatabase, string> = { postgres: 'PostgreSQL', mysql: 'MariaDB/MySQL' };

/** The server's admin URL (its `test` database). */
export function serverUrl(kind: ExternalDatabase): string {
  return process.env[kind === 'postgres' ? 'PORTICO_TEST_POSTGRES_URL' : 'PORTICO_TEST_MYSQL_URL'] ?? DEFAULT_URLS[kind];
}

async function ping(kind: ExternalDatabase): Promise<void> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: serverUrl(kind), connectionTimeoutMillis: 3000 });
    await client.connect();
    await client.end();
  } else {
    const connection = await mysql.createConnection({ uri: serverUrl(kind), connectTimeout: 3000 });
    await connection.end();
  }
}

const reachable = new Map<ExternalDatabase, Promise<boolean>>();

/**
 * Whether the server is reachable: use as `describe.skipIf(!(await requireService('postgres')))`.
 * Under CI=true an unreachable server throws instead, so that CI cannot pass by skipping.
 */
export function requireService(kind: ExternalDatabase): Promise<boolean> {
  let result = reachable.get(kind);
  if (result === undefined) {
    result = ping(kind).then(
      () => true,
      (error: unknown) => {
        const message = `${LABELS[kind]} at ${serverUrl(kind)} is unreachable (${(error as Error).message})`;
        if (process.env.CI === 'true') throw new Error(`${message}; CI needs it.`);
        process.stderr.write(`\n[skipped] ${message}: its tests are skipped.\n`);
        return false;
      },
    );
    reachable.set(kind, result);
  }
  return result;
}

export interface TestDatabase {
  kind: ExternalDatabase;
  /** The random database name. */
  name: string;
  /** URL of the new database. */
  url: string;
  /** The reference platform's connection fields for a service config. */
  config: { host: string; port: number; database: string; username: string; password: string };
  /** Drops the database (closing whatever still uses it on PostgreSQL). */
  drop(): Promise<void>;
}

/** Creates a database with a random name `portico_test_<hex>` on the server. */
export async function createTestDatabase(kind: ExternalDatabase): Promise<TestDatabase> {
  const name = `portico_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new URL(serverUrl(kind));
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const config = {
    host: admin.hostname,
    port: Number(admin.port || (kind === 'postgres' ? 5432 : 3306)),
    database: name,
    username: decodeURIComponent(admin.username),
    password: decodeURIComponent(admin.password),
  };
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: admin.href });
    await client.connect();
    await client.query(`create database "${name}"`);
    await client.end();
    return {
      kind,
      name,
      url: url.href,
      config,
      async drop() {
        const c = new pg.Client({ connectionString: admin.href });
        await c.connect();
        await c.query(`drop database if exists "${name}" with (force)`);
        await c.end();
      },
    };
  }
  const connection = await mysql.createConnection({ uri: admin.href });
  await connection.query(`create database \`${name}\``);
  await connection.end();
  return {
    kind,
    name,
    url: url.href,
    config,
    async drop() {
      const c = await mysql.createConnection({ uri: admin.href });
      await c.query(`drop database if exists \`${name}\``);
      await c.end();
    },
  };
}
