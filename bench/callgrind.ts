/**
 * Instruction counts of a server under valgrind's callgrind: a measure of the CPU work per request
 * that the machine's other load does not move (callgrind counts instructions, not time), for
 * comparing two builds or Portico with the hand-written server. Used by `table-bench.ts
 * --instructions`.
 *
 * The server runs as `valgrind --tool=callgrind --instr-atstart=no node --single-threaded ...`:
 * V8's helper threads would otherwise do its marking and compiling beside the main thread, and
 * callgrind serialises threads anyway. Counting is switched on after a warm-up; each batch of
 * requests is zeroed before and dumped after (`callgrind_control`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** V8 flags that make a run repeatable: no helper threads, GC at predictable points, one hash seed. */
const NODE_FLAGS = ['--single-threaded', '--predictable-gc-schedule', '--hash-seed=1'];

/** The command running `node <args>` under callgrind, its dumps written to `dir`. */
export function underCallgrind(nodeArgs: string[], dir: string): { command: string; args: string[] } {
  return {
    command: 'valgrind',
    args: [
      '--tool=callgrind',
      '--instr-atstart=no',
      // V8 writes code into anonymous memory and rewrites it: check all of it for changes.
      '--smc-check=all-non-file',
      `--callgrind-out-file=${path.join(dir, 'callgrind.%p')}`,
      process.execPath,
      ...NODE_FLAGS,
      ...nodeArgs,
    ],
  };
}

/**
 * The HOST the servers run with (table-bench's `start`): valgrind names the pipes callgrind_control
 * talks through after the HOST variable, so a control command sent with another HOST finds no one
 * (and callgrind_control still prints OK).
 */
const SERVER_HOST = '127.0.0.1';

function control(pid: number, option: string): string {
  return execFileSync('callgrind_control', [option, String(pid)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOST: SERVER_HOST },
  });
}

/** Switches counting on (after the warm-up). */
export function startCounting(pid: number): void {
  control(pid, '--instr=on');
}

/** Zeroes the counters: the next dump holds what ran from now on. */
export function zeroCounts(pid: number): void {
  control(pid, '--zero');
}

/**
 * Work that comes in bursts, in some batches and not others: garbage collection, V8's incremental
 * marking and its compilers. Their inclusive counts are reported apart so that batches of one build
 * agree within a few percent (the thirteenth session's measure).
 */
const BURSTS: Array<[string, RegExp]> = [
  ['gc', /v8::internal::Heap::CollectGarbage\(/],
  ['marking', /v8::internal::IncrementalMarking::Step\(/],
  ['compile', /v8::internal::Compiler::Compile[A-Za-z]*\(/],
  ['baseline', /v8::internal::baseline::BaselineBatchCompiler::CompileBatch\(/],
  ['deopt', /v8::internal::Deoptimizer::New\(/],
];

/**
 * Work that runs from timers, not from requests: node's timer callback (every `setTimeout` and
 * `setInterval` that fires, with the microtasks it leaves). The servers' timers (the change feed's
 * poll, the access-usage flush, the idle check, the log's batch write) fire every 50 ms to 2 s of
 * the wall clock, and a get under valgrind takes tens of milliseconds: how many land in a batch
 * depends on how fast valgrind runs, i.e. on the machine's load. Reported apart, as the bursts are.
 */
const TIMERS = /node::Environment::RunTimers\(/;

export interface Counts {
  /** Every instruction counted in the batch. */
  total: number;
  /**
   * `total` less the bursts' and the timers' inclusive counts. A collection inside a timer's
   * callback is in both and so subtracted twice: a batch where that happens reads a little low.
   */
  steady: number;
  bursts: Record<string, number>;
  /** Inclusive count of the timers' callbacks (TIMERS). */
  timers: number;
}

/** Dumps the counters and reads the dump: total, and the bursts' inclusive counts (the largest entry of each). */
export async function dumpCounts(pid: number, dir: string): Promise<Counts> {
  const before = new Set(fs.readdirSync(dir));
  const answer = control(pid, '--dump');
  // The dump is written once the server's next basic block runs the command: wait for the file.
  let file: string | undefined;
  for (let waited = 0; waited < 30_000 && file === undefined; waited += 100) {
    file = fs.readdirSync(dir).find((name) => name.startsWith(`callgrind.${pid}`) && !before.has(name));
    if (file === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!file) throw new Error(`callgrind wrote no dump for process ${pid} in ${dir} (callgrind_control said: ${answer.trim()})`);
  // A file seen while being written: wait until its size holds still.
  const full = path.join(dir, file);
  for (let size = -1; size !== fs.statSync(full).size; ) {
    size = fs.statSync(full).size;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const text = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', '--auto=no', full], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  fs.rmSync(full);
  const number = (digits: string) => Number(digits.replaceAll(',', ''));
  const totalLine = /^\s*([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/m.exec(text) ?? /^\s*([\d,]+)\s+PROGRAM TOTALS/m.exec(text);
  if (!totalLine) throw new Error(`No PROGRAM TOTALS in callgrind_annotate's output for ${full}`);
  const total = number(totalLine[1]);
  const lines = text.split('\n');
  /** The largest inclusive count of a function matching `pattern` (0 when none ran). */
  const largest = (pattern: RegExp): number => {
    let most = 0;
    for (const line of lines) {
      if (!pattern.test(line)) continue;
      const count = /^\s*([\d,]+)/.exec(line);
      if (count) most = Math.max(most, number(count[1]));
    }
    return most;
  };
  const bursts: Record<string, number> = {};
  for (const [name, pattern] of BURSTS) bursts[name] = largest(pattern);
  const timers = largest(TIMERS);
  const steady = total - timers - Object.values(bursts).reduce((sum, n) => sum + n, 0);
  return { total, steady, bursts, timers };
}
