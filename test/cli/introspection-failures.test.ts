/**
 * Databases that refuse or do not speak the expected protocol during `gen build`: one positioned
 * diagnostic per service, every one reported at once, never "a bug in Portico"; services are
 * introspected in parallel, so a slow or failing one does not hide the others.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../generator/cli/program.js';
import { requireService } from '../helpers/require-service.js';
import { captureIo } from './cli-fixtures.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-introspect-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const servers = (await requireService('postgres')) && (await requireService('mysql'));

it.skipIf(!servers)('reports a pgsql service on the MySQL port, a mysql service on the PostgreSQL port and a closed port, each at its entry', async () => {
  fs.writeFileSync(path.join(dir, 'platform.yaml'), [
    'platform:',
    '  name: wrong',
    'services:',
    '  - name: shop',
    '    type: pgsql',
    '    config:',
    '      url: postgres://postgres:secret@127.0.0.1:3306/test',
    '  - name: legacy',
    '    type: mysql',
    '    config:',
    '      url: mysql://root@127.0.0.1:5432/test',
    '  - name: gone',
    '    type: pgsql',
    '    config:',
    '      url: postgres://postgres@127.0.0.1:1/test',
    '',
  ].join('\n'));
  const { io, out } = captureIo(dir);
  expect(await runCli(['build'], io)).toBe(1);
  expect(out.stderr).toMatch(/platform\.yaml:4:5: Introspection of service 'shop' \(pgsql\) failed: .* \[PCO201\]/);
  expect(out.stderr).toMatch(/platform\.yaml:8:5: Introspection of service 'legacy' \(mysql\) failed: .* \[PCO201\]/);
  expect(out.stderr).toMatch(/platform\.yaml:12:5: Introspection of service 'gone' \(pgsql\) failed: .* \[PCO201\]/);
  expect(out.stderr).toContain('3 problems found.');
  expect(out.stderr).not.toMatch(/bug in Portico|\n\s+at /);
  expect(out.stderr).not.toContain('secret');
});
