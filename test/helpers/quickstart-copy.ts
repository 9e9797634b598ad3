/**
 * A private copy of examples/quickstart inside the repo (so `portico/runtime` resolves by package
 * self-reference) whose generated server runs as a child process on a real port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { SOURCE_NODE_ARGS } from './source-node.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface RunningQuickstart {
  dir: string;
  url: string;
  apiKey: string;
  output: string;
  /** The server process (for tests that kill it hard). */
  pid: number;
  /** Everything the server has printed so far (stdout and stderr). */
  printed(): string;
  /** The server's stdout as this process reads it (pause it to stop reading). */
  stdout: Readable;
  /** The exit code, once the process ends (null when a signal ended it). */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export function copyQuickstart(): string {
  const dir = fs.mkdtempSync(path.join(repoRoot, '.tmp-quickstart-'));
  // The platform's own TypeScript (hooks, endpoints) too, for tests that build the copy again.
  for (const entry of ['platform.yaml', 'seed', 'audit-seed', 'server', 'hooks', 'endpoints']) {
    fs.cpSync(path.join(repoRoot, 'examples/quickstart', entry), path.join(dir, entry), { recursive: true });
  }
  return dir;
}

/** Starts the copied generated server on a free port and waits for its start-up lines. */
export function startQuickstart(dir: string, env: Record<string, string>): Promise<RunningQuickstart> {
  const child: ChildProcess = spawn(process.execPath, [...SOURCE_NODE_ARGS, path.join(dir, 'server/main.mjs')], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      const apiKey = /admin app API key: ([0-9a-f]{64})/.exec(output)?.[1];
      if (url && apiKey) {
        clearTimeout(timer);
        resolve({
          dir,
          url,
          apiKey,
          output,
          pid: child.pid!,
          printed: () => output,
          stdout: child.stdout!,
          exited,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}
