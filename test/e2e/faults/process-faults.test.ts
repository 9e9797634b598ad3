/**
 * Faults at the process level of a generated server with worker processes (PORTICO_WORKERS, as
 * `--workers N`): SIGTERM while requests are in flight lets them finish, takes no new ones and
 * exits 0 within the drain limit; a worker killed with SIGKILL is replaced while the others serve.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { copyQuickstart, startQuickstart } from '#test/helpers/quickstart-copy.js';

const ADMIN = { email: 'admin@faults.local', password: 'admin-password-12345' };

/** The primary's child processes running Node.js. */
function workerPids(primary: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(primary)]).stdout.toString();
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, executable]) => executable !== undefined && path.basename(executable) === path.basename(process.execPath))
    .map(([pid]) => Number(pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A login sent on its own connection with only the first bytes of its body: in flight until `finish()`. */
async function halfSentLogin(port: number) {
  const body = JSON.stringify(ADMIN);
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  socket.on('data', (chunk) => {
    answer += chunk.toString();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    [
      'POST /api/v2/system/admin/session HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      '',
      body.slice(0, 10),
    ].join('\r\n'),
  );
  return {
    finish: async () => {
      socket.write(body.slice(10));
      await closed;
      return answer;
    },
  };
}

describe('a server with two workers', () => {
  it('on SIGTERM lets the requests in flight on its workers finish, takes no new ones, and exits 0', { timeout: 120_000 }, async () => {
    const dir = copyQuickstart();
    try {
      const server = await startQuickstart(dir, {
        PORTICO_WORKERS: '2',
        PORTICO_ADMIN_EMAIL: ADMIN.email,
        PORTICO_ADMIN_PASSWORD: ADMIN.password,
      });
      const port = Number(new URL(server.url).port);
      await vi.waitFor(() => expect(workerPids(server.pid)).toHaveLength(2), { timeout: 20_000 });
      const workers = workerPids(server.pid);
      // Several connections: the primary hands them to both workers.
      const inFlight = await Promise.all([1, 2, 3, 4].map(() => halfSentLogin(port)));
      await new Promise((resolve) => setTimeout(resolve, 500));
      process.kill(server.pid, 'SIGTERM');
      // Well past any short grace: the requests are still in flight, their bodies not yet sent.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const answers = await Promise.all(inFlight.map((request) => request.finish()));
      for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      // No new request is served (refused, or closed without an answer).
      const late = await fetch(`${server.url}/api/v2/system/admin/session`, { method: 'POST', body: JSON.stringify(ADMIN) }).then(
        (response) => response.status,
        () => 'refused',
      );
      expect(late).toBe('refused');
      expect(await server.exited).toBe(0);
      await vi.waitFor(() => expect(workers.filter(alive)).toEqual([]), { timeout: 20_000 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replaces a worker killed with SIGKILL while the other serves every new request', { timeout: 240_000 }, async () => {
    const dir = copyQuickstart();
    try {
      const server = await startQuickstart(dir, {
        PORTICO_WORKERS: '2',
        PORTICO_ADMIN_EMAIL: ADMIN.email,
        PORTICO_ADMIN_PASSWORD: ADMIN.password,
      });
      try {
        await vi.waitFor(() => expect(workerPids(server.pid)).toHaveLength(2), { timeout: 20_000 });
        const [killed] = workerPids(server.pid);
        process.kill(killed, 'SIGKILL');
        // New connections go to the worker left (then to the new one as well): each is served.
        const login = () =>
          fetch(`${server.url}/api/v2/system/admin/session`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', connection: 'close' },
            body: JSON.stringify(ADMIN),
            signal: AbortSignal.timeout(10_000),
          }).then(
            (response) => response.status,
            () => 'no answer',
          );
        // A connection the primary handed to the killed worker before it learnt of its death gets no answer (node:cluster's
        // round robin); the client's retry is served.
        for (let i = 0; i < 10; i++) {
          let status = await login();
          for (let retry = 0; status === 'no answer' && retry < 2; retry++) status = await login();
          expect(status).toBe(200);
        }
        await vi.waitFor(
          () => {
            const pids = workerPids(server.pid);
            expect(pids).toHaveLength(2);
            expect(pids).not.toContain(killed);
          },
          { timeout: 30_000 },
        );
        // Stopped while a new worker is still starting (its drain handler not yet set up): all the same a clean exit, in time.
        const [second] = workerPids(server.pid).filter((pid) => pid !== killed);
        process.kill(second, 'SIGKILL');
        await vi.waitFor(() => expect(workerPids(server.pid).filter((pid) => pid !== second)).toHaveLength(2), { timeout: 30_000 });
      } finally {
        await server.stop();
      }
      expect(await server.exited).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
