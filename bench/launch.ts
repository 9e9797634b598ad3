/**
 * How the benches start their contestants: a bench script in a process of its own (through tsx),
 * and Portico serving a platform model on 127.0.0.1, logged in as the seeded administrator.
 * (table-bench.ts starts the generated server as its README says, and times it: its own launcher.)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { PlatformModel } from '#runtime/model/platform-model.js';
import { startTestServer } from '#test/helpers/platform-fixtures.js';

const root = path.resolve(import.meta.dirname, '..');

export interface Started {
  child: ChildProcess;
  /** The first line the script printed (its URL, or `<url> <api key> <session token>`). */
  line: string;
}

/** Starts a script (repository-relative) with tsx and resolves with the first line it prints. */
export function startScript(script: string, env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) resolve({ child, line: output.split('\n')[0].trim() });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${output}`)));
  });
}

export interface ServedPortico {
  url: string;
  apiKey: string;
  /** A session token of the model's first administrator. */
  token: string;
  close(): Promise<void>;
}

/** Portico serving `model` from `dir` on 127.0.0.1 (`port` 0: any), system database in memory. */
export async function servePortico(model: PlatformModel, dir: string, port = 0): Promise<ServedPortico> {
  const server = await startTestServer(model, { baseDir: dir, systemDatabase: ':memory:', env: {} });
  const url = await server.app.listen({ host: '127.0.0.1', port });
  return { url, apiKey: server.apiKey, token: await server.adminToken(), close: () => server.close() };
}

/**
 * The body of a Portico server script: serves `model` from `dir` on PORT (0: any), prints
 * `<url> <api key> <session token>`, and on SIGTERM closes and removes `dir`.
 */
export async function announcePortico(model: PlatformModel, dir: string): Promise<void> {
  const served = await servePortico(model, dir, Number(process.env.PORT ?? 0));
  console.log(`${served.url} ${served.apiKey} ${served.token}`);
  process.on('SIGTERM', () => {
    void served
      .close()
      .then(() => fs.rmSync(dir, { recursive: true, force: true }))
      .finally(() => process.exit(0));
  });
}
