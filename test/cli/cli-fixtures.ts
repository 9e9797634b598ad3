/** A small SQLite platform in a temp directory, and a CliIo that records what the CLI prints. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { CliIo } from '#generator/cli/cli-io.js';

export interface TestPlatform {
  /** Temp directory holding site/platform.yaml and site/data/app.sqlite. */
  dir: string;
  /** Path of platform.yaml relative to `dir`. */
  configPath: string;
  platformDir: string;
}

/** platform.yaml whose built-in db is a SQLite file with one table, `contact`. */
export function makeSqlitePlatform(yaml = ''): TestPlatform {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-cli-'));
  const platformDir = path.join(dir, 'site');
  fs.mkdirSync(path.join(platformDir, 'data'), { recursive: true });
  const db = new Database(path.join(platformDir, 'data', 'app.sqlite'));
  db.exec('CREATE TABLE contact (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, email TEXT UNIQUE)');
  db.close();
  fs.writeFileSync(
    path.join(platformDir, 'platform.yaml'),
    yaml ||
      [
        'platform:',
        '  name: cli-test',
        '  title: CLI test',
        'services:',
        '  - name: db',
        '    config:',
        '      database: data/app.sqlite',
        '',
      ].join('\n'),
  );
  return { dir, configPath: path.join('site', 'platform.yaml'), platformDir };
}

/** The repository root (where package.json names the package `portico`). */
export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * Lets a generated server in `dir` run as in a user's project: an ES-module package whose
 * node_modules holds `portico` (this repository) and `fastify`.
 */
export function linkRuntime(dir: string): void {
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  fs.symlinkSync(REPO_ROOT, path.join(dir, 'node_modules', 'portico'), 'dir');
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', 'fastify'), path.join(dir, 'node_modules', 'fastify'), 'dir');
}

export interface CapturedIo {
  io: CliIo;
  out: { stdout: string; stderr: string };
}

export function captureIo(cwd: string, isTTY = false): CapturedIo {
  const out = { stdout: '', stderr: '' };
  return {
    io: {
      stdout: (text) => {
        out.stdout += text;
      },
      stderr: (text) => {
        out.stderr += text;
      },
      isTTY,
      cwd,
      env: { ...process.env },
    },
    out,
  };
}
