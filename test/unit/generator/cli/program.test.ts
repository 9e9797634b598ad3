/**
 * The CLI in-process. The tests marked "needs the sqlite kind" build a real SQLite platform: they
 * need runtime/services/sql to register the sqlite kind (and show more once the emitter writes files).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '#generator/cli/program.js';
import { listFiles } from '#generator/write/generated-files.js';
import { captureIo, makeSqlitePlatform } from '#test/cli/cli-fixtures.js';

describe('gen: usage', () => {
  it.each(['build', 'serve', 'check', 'inspect'])('prints help for %s', async (command) => {
    const { io, out } = captureIo(process.cwd());
    expect(await runCli([command, '--help'], io)).toBe(0);
    expect(out.stdout).toContain(`Usage: gen ${command} [options] [platform.yaml]`);
  });

  it('lists the commands in the top-level help', async () => {
    const { io, out } = captureIo(process.cwd());
    expect(await runCli(['--help'], io)).toBe(0);
    for (const command of ['build', 'serve', 'check', 'inspect']) expect(out.stdout).toContain(`  ${command} `);
  });

  it('exits 1 on an unknown command or a missing argument', async () => {
    const first = captureIo(process.cwd());
    expect(await runCli(['bild'], first.io)).toBe(1);
    expect(first.out.stderr).toContain("error: unknown command 'bild'");
    // Without an argument the commands read ./platform.yaml.
    const { dir } = makeSqlitePlatform();
    const second = captureIo(dir);
    expect(await runCli(['build'], second.io)).toBe(1);
    expect(second.out.stderr).toContain('platform.yaml: Cannot read the platform config: no such file. [PCO100]');
  });
});

describe('gen: config problems', () => {
  it('reports a missing file without a stack', async () => {
    const { dir } = makeSqlitePlatform();
    const { io, out } = captureIo(dir);
    expect(await runCli(['build', 'missing.yaml'], io)).toBe(1);
    expect(out.stderr).toBe('missing.yaml: Cannot read the platform config: no such file. [PCO100]\n1 problem found.\n');
  });

  it('reports every config problem positioned, with a frame, and no stack', async () => {
    const { dir, configPath } = makeSqlitePlatform('platform:\n  name: demo\n  nmae: x\nservices:\n  - name: shop\n    type: sqlit\n');
    for (const command of ['build', 'check', 'inspect']) {
      const { io, out } = captureIo(dir);
      expect(await runCli([command, configPath], io)).toBe(1);
      expect(out.stderr).toContain(
        `${configPath}:3:3: Unknown key 'nmae' in platform. Did you mean 'name'? [PCO102]\n   3 |   nmae: x\n     |   ^\n`,
      );
      expect(out.stderr).toContain(`${configPath}:6:11: Unknown service type 'sqlit'.`);
      expect(out.stderr).not.toMatch(/\n\s+at /);
      expect(out.stdout).toBe('');
    }
  });
});

describe('gen: build, check, inspect (needs the sqlite kind)', () => {
  it('prints a one-line summary, and stage times on a terminal', async () => {
    const { dir, configPath, platformDir } = makeSqlitePlatform();
    const piped = captureIo(dir);
    expect(await runCli(['build', configPath], piped.io)).toBe(0);
    expect(piped.out.stderr).toBe('');
    expect(piped.out.stdout).toMatch(
      /^Built site\/server\/ in \d+ ms: 7 services, 1 table, 0 operations; \d+ added, 0 changed, 0 unchanged, 0 removed\.\n$/,
    );

    const tty = captureIo(dir, true);
    expect(await runCli(['build', configPath, '-o', 'out'], tty.io)).toBe(0);
    expect(
      tty.out.stderr
        .split('\n')
        .filter(Boolean)
        .map((line) => line.trim().split(/\s+/)[0]),
    ).toEqual(['load', 'introspect', 'model', 'emit', 'write']);
    expect(tty.out.stderr).toMatch(/^ {2}load +\d+ ms$/m);
    expect(tty.out.stdout).toMatch(
      /^Built out\/ in \d+ ms: 7 services, 1 table, 0 operations; \d+ added, 0 changed, 0 unchanged, 0 removed\.\n$/,
    );
    const added = Number(/(\d+) added/.exec(tty.out.stdout)![1]);
    expect(await listFiles(path.join(dir, 'out'))).toHaveLength(added);
    expect(await listFiles(path.join(platformDir, 'server'))).toHaveLength(added);
  });

  it('quotes a config path with a space in the command that check suggests', async () => {
    const { dir, platformDir } = makeSqlitePlatform();
    fs.renameSync(platformDir, path.join(dir, 'my site'));
    const configPath = path.join('my site', 'platform.yaml');
    const drift = captureIo(dir);
    expect(await runCli(['check', configPath], drift.io)).toBe(1);
    expect(drift.out.stderr).toContain(`Run \`gen build '${configPath}'\` to update it.\n`);
  });

  it('checks: 0 when up to date, 1 with a diff when a generated file drifted', async () => {
    const { dir, configPath, platformDir } = makeSqlitePlatform();
    expect(await runCli(['build', configPath], captureIo(dir).io)).toBe(0);
    expect(await runCli(['check', configPath], captureIo(dir).io)).toBe(0);

    const serverDir = path.join(platformDir, 'server');
    // The types of a service platform.yaml no longer declares.
    fs.mkdirSync(path.join(serverDir, 'services', 'gone'), { recursive: true });
    fs.writeFileSync(path.join(serverDir, 'services', 'gone', 'types.ts'), '// Generated by Portico\nexport {};\n');
    const drift = captureIo(dir);
    expect(await runCli(['check', configPath], drift.io)).toBe(1);
    expect(drift.out.stdout).toContain('--- a/services/gone/types.ts\n+++ /dev/null\n');
    expect(drift.out.stderr).toBe(
      `${path.join('site', 'server')}/ is out of date: 0 added, 0 changed, 1 removed. Run \`gen build ${configPath}\` to update it.\n`,
    );

    expect(await runCli(['build', configPath], captureIo(dir).io)).toBe(0);
    expect(fs.existsSync(path.join(serverDir, 'services', 'gone'))).toBe(false);
    expect(await runCli(['check', configPath], captureIo(dir).io)).toBe(0);
  });

  it('lists what it would write in a dry run, writing nothing', async () => {
    const { dir, configPath, platformDir } = makeSqlitePlatform();
    const { io, out } = captureIo(dir);
    expect(await runCli(['build', configPath, '--dry-run'], io)).toBe(0);
    expect(out.stdout).toMatch(/^add {5}main\.mjs$/m);
    expect(fs.existsSync(path.join(platformDir, 'server'))).toBe(false);
  });

  it('prints the platform model as JSON', async () => {
    const { dir, configPath } = makeSqlitePlatform();
    const { io, out } = captureIo(dir);
    expect(await runCli(['inspect', configPath], io)).toBe(0);
    const model = JSON.parse(out.stdout);
    expect(model.platform).toEqual({ name: 'cli-test', title: 'CLI test', description: '' });
    expect(model.services.map((service: { id: number }) => service.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const db = model.services[4];
    expect(db).toMatchObject({ name: 'db', type: 'sqlite', kind: 'sql', config: { database: 'data/app.sqlite' } });
    expect(db.schema.tables.map((table: { name: string }) => table.name)).toEqual(['contact']);
  });
});
