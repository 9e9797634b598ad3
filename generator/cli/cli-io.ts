/**
 * What the CLI writes to and reads from, injectable so that tests run commands in-process.
 */
import path from 'node:path';
import type { Env } from '../../runtime/core/env.js';
import type { PlatformModel } from '../../runtime/model/platform-model.js';
import type { StageTiming } from '../pipeline.js';
import type { WritePlan } from '../write/write-files.js';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stdout is a terminal: stage lines and summaries are printed only then. */
  isTTY: boolean;
  cwd: string;
  env: Env;
}

/** The real process. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTTY: process.stdout.isTTY === true,
    cwd: process.cwd(),
    env: process.env,
  };
}

/** A line per stage with its time, on stderr, when stdout is a terminal. */
export function stageReporter(io: CliIo): ((timing: StageTiming) => void) | undefined {
  return io.isTTY ? ({ stage, ms }) => io.stderr(`  ${stage.padEnd(10)} ${String(ms).padStart(5)} ms\n`) : undefined;
}

/** A directory as the user would type it (relative below the working directory, else absolute), with a trailing slash. */
export function displayDir(io: CliIo, dir: string): string {
  const relative = path.relative(io.cwd, dir);
  return `${relative.startsWith('..') ? dir : relative || '.'}/`;
}

/** `Wrote server/: 1 added, 2 changed, 40 unchanged, 0 removed.` */
export function planSummary(io: CliIo, outDir: string, plan: WritePlan, verb = 'Wrote'): string {
  return `${verb} ${displayDir(io, outDir)}: ${plan.added.length} added, ${plan.changed.length} changed, ${plan.unchanged.length} unchanged, ${plan.removed.length} removed.\n`;
}

/** A path as the user may paste it into a POSIX shell: quoted when it holds anything but plain characters. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** `1 operation`, `4 operations`: a count with its noun in the number it needs. */
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** `Built server/ in 812 ms: 9 services, 4 tables, 4 operations; 1 added, 2 changed, 40 unchanged, 0 removed.` */
export function buildSummary(io: CliIo, outDir: string, model: PlatformModel, plan: WritePlan, ms: number, verb = 'Built'): string {
  const tables = model.services.reduce((sum, service) => sum + (service.kind === 'sql' ? service.schema.tables.length : 0), 0);
  const operations = model.services.reduce((sum, service) => sum + (service.kind === 'soap' ? service.operations.length : 0), 0);
  const counts = `${counted(model.services.length, 'service')}, ${counted(tables, 'table')}, ${counted(operations, 'operation')}`;
  const files = `${plan.added.length} added, ${plan.changed.length} changed, ${plan.unchanged.length} unchanged, ${plan.removed.length} removed`;
  return `${verb} ${displayDir(io, outDir)} in ${Math.round(ms)} ms: ${counts}; ${files}.\n`;
}
