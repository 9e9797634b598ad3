/**
 * DELETE /system/cache[/{service}] made through one instance reaches every instance on the system
 * database: the instance that clears writes a token per cleared service (`*` for all) into the
 * system database; the others compare the tokens with what they saw each time they catch up with
 * a change (change-feed.ts: at once through Redis, within seconds through the database alone)
 * and clear the same caches of their own (a SOAP service's WSDL, a database's catalog, and the
 * in-process responses kept when there is no Redis).
 */
import { randomBytes } from 'node:crypto';
import { upsert, type SystemDb } from '../store/system-db.js';

const PREFIX = 'cache_cleared:';
const ALL = '*';

export class CacheClears {
  private readonly seen = new Map<string, string>();

  constructor(private readonly db: SystemDb) {}

  /** Takes note of the clears made before this instance started (their caches are fresh here). */
  async start(): Promise<void> {
    for (const row of await this.rows()) this.seen.set(row.name, row.value);
  }

  /** Records a clear made here: one service's caches, or every service's (null). */
  async record(service: string | null): Promise<void> {
    const name = PREFIX + (service ?? ALL);
    const token = randomBytes(8).toString('hex');
    this.seen.set(name, token);
    await upsert(this.db, 'system_setting', 'name', { name, value: token }, { value: token });
  }

  /** The clears made elsewhere since the last look: service names, and null for "every service". */
  async news(): Promise<Array<string | null>> {
    const found: Array<string | null> = [];
    for (const row of await this.rows()) {
      if (this.seen.get(row.name) === row.value) continue;
      this.seen.set(row.name, row.value);
      const service = row.name.slice(PREFIX.length);
      found.push(service === ALL ? null : service);
    }
    return found;
  }

  private async rows(): Promise<Array<{ name: string; value: string }>> {
    const rows = await this.db.selectFrom('system_setting').select(['name', 'value']).where('name', 'like', `${PREFIX}%`).execute();
    // `_` is a LIKE wildcard: the prefix is checked exactly here.
    return rows.filter((row) => row.name.startsWith(PREFIX));
  }
}
