/**
 * `gen dev` as a user runs it, for the CLI tests: one node process with the source loader (tsx's
 * wrapper process could exit before the dev server had closed), its stdout and stderr collected,
 * a wait for a line printed after a given point, and a stop that waits for the exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { SOURCE_NODE_ARGS } from '#test/helpers/source-node.js';
import { REPO_ROOT } from './cli-fixtures.js';

export class GenDev {
  /** Everything it printed so far. */
  text = '';
  private readonly child: ChildProcess;

  /** Starts `gen dev <args>` in `cwd` on a free port. */
  constructor(cwd: string, args: readonly string[]) {
    this.child = spawn(process.execPath, [...SOURCE_NODE_ARGS, path.join(REPO_ROOT, 'bin', 'gen.ts'), 'dev', ...args], {
      cwd,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => {
      this.text += chunk.toString();
    };
    this.child.stdout!.on('data', collect);
    this.child.stderr!.on('data', collect);
  }

  /** The first match of `pattern` in what it printed after `from`, waited for up to `timeoutMs`. */
  waitFor(pattern: RegExp, from = 0, timeoutMs = 60_000): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.text.slice(from));
        if (match) {
          clearInterval(timer);
          clearTimeout(deadline);
          resolve(match);
        }
      };
      const timer = setInterval(check, 50);
      const deadline = setTimeout(() => {
        clearInterval(timer);
        reject(new Error(`no ${pattern} in the output of gen dev:\n${this.text.slice(from)}`));
      }, timeoutMs);
      check();
    });
  }

  /** The served API's origin, once it listens and gen dev watches (it says what it watches just after the server starts). */
  async listening(): Promise<string> {
    const [, url] = await this.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\/api\/v2/);
    await this.waitFor(/^Watching .*\n/m);
    return url;
  }

  /** SIGTERM; its exit code once it has exited (its earlier one when it already had). */
  stop(): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve(this.child.exitCode);
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.kill('SIGTERM');
    return exited;
  }
}
