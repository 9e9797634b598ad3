/**
 * What a schema change costs in review (issue 11 item 6): adding a column to a table changes each
 * generated file that describes that table once, and nothing else; the built-ins' documents are
 * not in the tree to change.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { buildPlatform } from '#generator/pipeline.js';
import { makeSqlitePlatform } from './cli-fixtures.js';

const platform = makeSqlitePlatform();
afterAll(() => fs.rmSync(platform.dir, { recursive: true, force: true }));

it('changes the files that describe the table, once each, when a column is added', { timeout: 120_000 }, async () => {
  const options = { configPath: platform.configPath, cwd: platform.dir, env: {} };
  const first = await buildPlatform(options);
  expect(first.plan.added).toEqual([
    'README.md',
    'events.ts',
    'main.mjs',
    'model.json',
    'openapi/db.json',
    'prisma/db.prisma',
    'services/db/routes.json',
    'services/db/types.ts',
  ]);

  const db = new Database(path.join(platform.platformDir, 'data', 'app.sqlite'));
  db.exec('ALTER TABLE contact ADD COLUMN phone TEXT');
  db.close();
  const second = await buildPlatform(options);
  expect(second.plan).toEqual({
    added: [],
    removed: [],
    // events.ts names the events (tables, not columns): adding a column changes none.
    unchanged: ['events.ts', 'main.mjs'],
    // The README's table of tables counts the fields.
    changed: ['README.md', 'model.json', 'openapi/db.json', 'prisma/db.prisma', 'services/db/routes.json', 'services/db/types.ts'],
  });
  for (const file of second.plan.changed.filter((file) => file !== 'README.md'))
    expect(fs.readFileSync(path.join(first.outDir, file), 'utf8')).toContain('phone');
});
