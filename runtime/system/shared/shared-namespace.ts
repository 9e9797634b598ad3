/**
 * The name instances on one system database share in Redis: generated once and kept in the
 * database, so that platforms sharing a Redis server (or tests) never see each other's keys.
 */
import { randomBytes } from 'node:crypto';
import { upsert, type SystemDb } from '../store/system-db.js';

export async function sharedNamespace(db: SystemDb): Promise<string> {
  await upsert(db, 'system_setting', 'name', { name: 'shared_namespace', value: randomBytes(6).toString('hex') });
  const row = await db.selectFrom('system_setting').select('value').where('name', '=', 'shared_namespace').executeTakeFirstOrThrow();
  return `portico:${row.value}`;
}
