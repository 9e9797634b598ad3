/**
 * The `gen` command line: a commander program whose commands call the pipeline. Tests run it
 * in-process through runCli with their own CliIo.
 */
import { Command, CommanderError } from 'commander';
import packageJson from 'portico/package.json' with { type: 'json' };
import { DiagnosticError, formatDiagnosticReport, isUserError } from '../diagnostics.js';
import { addBuildCommand } from './build-command.js';
import { addCheckCommand } from './check-command.js';
import { addDevCommand } from './dev-command.js';
import { processIo, type CliIo } from './cli-io.js';
import { addInitCommand } from './init-command.js';
import { addInspectCommand } from './inspect-command.js';
import { addServeCommand } from './serve-command.js';

/** The program; it throws CommanderError instead of exiting (help, usage errors, failed checks). */
export function createProgram(io: CliIo = processIo()): Command {
  const program = new Command('gen')
    .description('Portico: generate a typed REST server from a platform.yaml.')
    .version(packageJson.version)
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
    .showHelpAfterError('(run with --help for usage)');
  addBuildCommand(program, io);
  addServeCommand(program, io);
  addDevCommand(program, io);
  addCheckCommand(program, io);
  addInspectCommand(program, io);
  addInitCommand(program, io);
  return program;
}

/**
 * Runs the command line (arguments without `node` and the script) and returns the exit code:
 * 0 success, 1 a user error or a failed check, 2 a bug in Portico (printed with its stack).
 */
export async function runCli(args: string[], io: CliIo = processIo()): Promise<number> {
  try {
    await createProgram(io).parseAsync(args, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof DiagnosticError) {
      io.stderr(formatDiagnosticReport(error.diagnostics));
      return 1;
    }
    if (isUserError(error)) {
      io.stderr(`error: ${error.message}\n`);
      return 1;
    }
    io.stderr(
      `${error instanceof Error ? error.stack : String(error)}\n\nThis is a bug in Portico. Please report it with the output above.\n`,
    );
    return 2;
  }
}
