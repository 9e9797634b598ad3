import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessUsage } from '#runtime/system/access/access-usage.js';
import { openSystemDb, type SystemDb } from '#runtime/system/store/system-db.js';
import { compileCounter } from '#test/helpers/compile-counter.js';

let db: SystemDb;

beforeAll(async () => {
  db = await openSystemDb(':memory:');
});
afterAll(async () => db.destroy());

const stored = (type: string, id: number) =>
  db.selectFrom('access_usage').selectAll().where('subject_type', '=', type).where('subject_id', '=', id).executeTakeFirst();

describe('AccessUsage flush', () => {
  it('compiles its statements once, not at every flush, and still merges inserts and updates column by column', async () => {
    const counter = compileCounter();
    let now = Date.UTC(2026, 0, 2, 3, 4, 5);
    const usage = new AccessUsage(db.withPlugin(counter.plugin), () => now);
    const afterStart = counter.compiled();

    usage.note({ app: 7, user: 8, role: 9 }, true, 'db', 200);
    await usage.flush();
    expect(await stored('app', 7)).toEqual({
      subject_type: 'app',
      subject_id: 7,
      last_used_at: '2026-01-02 03:04:05',
      last_denied_at: null,
      last_service: 'db',
      last_status: 200,
    });

    // A later refusal updates the stored row: the last allowed use, its service and status stay.
    now += 60_000;
    usage.note({ app: 7 }, false, 'files', 403);
    await usage.flush();
    now += 60_000;
    usage.note({ role: 9 }, true, 'files', 201);
    await usage.flush();
    expect(await stored('app', 7)).toMatchObject({
      last_used_at: '2026-01-02 03:04:05',
      last_denied_at: '2026-01-02 03:05:05',
      last_service: 'db',
      last_status: 200,
    });
    expect(await stored('role', 9)).toMatchObject({
      last_used_at: '2026-01-02 03:06:05',
      last_denied_at: null,
      last_service: 'files',
      last_status: 201,
    });
    expect(await stored('user', 8)).toMatchObject({ last_used_at: '2026-01-02 03:04:05', last_service: 'db' });
    expect(counter.compiled()).toBe(afterStart);
    await usage.close();
  });
});
