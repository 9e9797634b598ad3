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
