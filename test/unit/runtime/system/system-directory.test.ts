import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemDirectory } from '#runtime/system/system-directory.js';
import { openSystemDb, type SystemDb } from '#runtime/system/store/system-db.js';

let db: SystemDb;

beforeAll(async () => {
  db = await openSystemDb(':memory:');
});
afterAll(async () => db.destroy());

describe('SystemDirectory revocations', () => {
  it('keeps a token revoked while a reload that read the table before the revocation finishes', async () => {
    const directory = new SystemDirectory(db);
    await directory.reload();
    // A reload (another instance's news, a change through the system service) reads the revoked
    // tokens first; a logout lands before it has replaced what it keeps in memory.
    const reloading = directory.reload();
    const revoking = directory.revoke('logged-out', 2_000_000_000);
    await Promise.all([reloading, revoking]);
    expect(directory.isRevoked('logged-out')).toBe(true);
    // And any later reload still knows it, from the table.
    await directory.reload();
    expect(directory.isRevoked('logged-out')).toBe(true);
  });
});

describe('SystemDirectory users', () => {
  it('does not cache a user read in flight when the account changes and is forgotten meanwhile', async () => {
    const now = '2026-01-01 00:00:00';
    const { id } = await db
      .insertInto('user')
      .values({
        name: 'Racer',
        first_name: 'R',
        last_name: 'R',
        username: null,
        email: 'racer@test.local',
        password: 'x',
        is_sys_admin: 0,
        is_active: 1,
        phone: null,
        default_app_id: null,
        last_login_date: null,
        confirm_code: null,
        confirm_code_expiry: null,
        tokens_valid_after: 0,
        created_date: now,
        last_modified_date: now,
        created_by_id: null,
        last_modified_by_id: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const directory = new SystemDirectory(db);
    await directory.reload();
    // A request reads the user (not cached yet) while an administrator deactivates the account,
    // which forgets the cached user once written: the read in flight must not put the old one back.
    const reading = directory.user(id);
    await db.updateTable('user').set({ is_active: 0 }).where('id', '=', id).execute();
    directory.forgetUser(id);
    await reading;
    expect((await directory.user(id))?.isActive).toBe(false);
  });
});
