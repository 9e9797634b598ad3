/**
 * The emitted Prisma schemas work with Prisma 7 as they are: `prisma generate` (run offline, see
 * below) makes a client from the quickstart's schema and from a PostgreSQL scenario's, and a small
 * program using each client type-checks with tsc.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#test/helpers/quickstart-copy.js';

const dir = path.join(repoRoot, `.tmp-prisma-${randomBytes(4).toString('hex')}`);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * `prisma generate` needs no schema engine, yet the CLI downloads one at start unless told where
 * one is; this machine has no internet, so it is pointed at any existing file.
 */
async function prismaGenerate(schema: string): Promise<void> {
  const result = await execa(path.join(repoRoot, 'node_modules/.bin/prisma'), ['generate', '--schema', schema], {
    cwd: dir,
    env: { PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
    reject: false,
  });
  expect(result.stdout + result.stderr).toMatch(/Generated Prisma Client/);
  expect(result.exitCode).toBe(0);
}

const programs: Record<string, string> = {
  'quickstart.ts': `
import Database from 'better-sqlite3';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaClient } from './quickstart/prisma/client/db/client.js';

export async function favourites(file: string): Promise<Array<{ first_name: string; last_name: string }>> {
  void Database;
  const prisma = new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: file }) });
  const contacts = await prisma.contact.findMany({
    where: { last_name: { startsWith: 'S' } },
    include: { contact_info_by_contact_id: true },
    orderBy: { first_name: 'asc' },
  });
  const emails: string[] = contacts.flatMap((contact) => contact.contact_info_by_contact_id.map((info) => info.email));
  void emails;
  return contacts;
}
`,
  'shop.ts': `
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from './shop/prisma/client/shop/client.js';

export async function paidOrders(url: string): Promise<number> {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
  const price: Prisma.Decimal | undefined = (await prisma.product.findFirst())?.price;
  void price;
  const orders = await prisma.order.findMany({ where: { status: 'paid', priority: 'high' } });
  return orders.length;
}
`,
};

describe('Prisma 7 with the emitted schemas', () => {
  it('generates clients offline and type-checks programs using them', async () => {
    fs.mkdirSync(path.join(dir, 'quickstart', 'prisma'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'shop', 'prisma'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'examples/quickstart/server/prisma/db.prisma'), path.join(dir, 'quickstart/prisma/db.prisma'));
    fs.copyFileSync(
      path.join(repoRoot, 'test/golden/scenarios/postgres-enums/server/prisma/shop.prisma'),
      path.join(dir, 'shop/prisma/shop.prisma'),
    );
    await prismaGenerate('quickstart/prisma/db.prisma');
    await prismaGenerate('shop/prisma/shop.prisma');
    for (const [file, text] of Object.entries(programs)) fs.writeFileSync(path.join(dir, file), text);
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2023',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        include: ['*.ts', '*/prisma/client/**/*.ts'],
      }),
    );
    const result = await execa(path.join(repoRoot, 'node_modules/.bin/tsc'), ['-p', dir], { cwd: dir, reject: false });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });
});
