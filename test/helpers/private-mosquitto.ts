/** A Mosquitto broker of a test's own, on a spare port with persistence in a temp directory, that the test can restart. */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closedPort, tcpReachable } from './require-broker.js';

export interface PrivateMosquitto {
  port: number;
  url: string;
  /** Stops the broker (SIGTERM: it saves its persistence file) and waits for it to exit. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** `settings`: further lines of mosquitto.conf (`max_packet_size 1024`). */
export async function startMosquitto(settings: string[] = []): Promise<PrivateMosquitto> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-mosquitto-'));
  fs.chmodSync(dir, 0o777);
  const port = await closedPort();
  const config = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(
    config,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'persistence true',
      `persistence_location ${dir}/`,
      'autosave_interval 1',
      ...settings,
      '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn('mosquitto', ['-c', config], { stdio: 'ignore' });
    const failed = new Promise<never>((_, reject) => child!.once('error', reject));
    for (let i = 0; i < 50; i++) {
      const up = await Promise.race([
        tcpReachable('127.0.0.1', port, 500).then(
          () => true,
          () => false,
        ),
        failed,
      ]);
      if (up) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`mosquitto did not start on port ${port}`);
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    start,
    stop,
    async close() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
