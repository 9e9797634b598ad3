import { CommanderError, type Command } from 'commander';
import { DiagnosticError, formatDiagnosticReport } from '../diagnostics.js';
import { displayDir, shellWord, stageReporter, type CliIo } from './cli-io.js';

/**
 * `gen check [platform.yaml] [-o dir] [--offline]`: exit 0 when the generated server is up to date,
 * 1 with a diff on drift (or a config problem), 3 when a database or WSDL cannot be introspected
 * (unreachable, or an `${env:...}` it needs is not set). It prints the warnings `gen build` prints,
 * which leave the exit code as it is.
 */
export function addCheckCommand(program: Command, io: CliIo): void {
  program
    .command('check')
    .description('Exit 1 with a diff when the generated server differs from what the config and the live schemas produce now.')
    .argument('[platform.yaml]', 'platform config', 'platform.yaml')
    .option('-o, --out <dir>', 'output directory (default: <platform dir>/server)')
    .option('--offline', 'compare with the committed model.json instead of introspecting databases and WSDLs')
    .addHelpText(
      'after',
      '\nExit codes: 0 up to date, 1 drift or a config problem, 3 a database or WSDL cannot be introspected (unreachable, or a variable it needs is not set).',
    )
    .action(async (configPath: string, options: { out?: string; offline?: boolean }) => {
      const { checkPlatform, hookWarnings, introspectionWarnings } = await import('../pipeline.js');
      let result: Awaited<ReturnType<typeof checkPlatform>>;
      try {
        result = await checkPlatform({
          configPath,
          outDir: options.out,
          cwd: io.cwd,
          env: io.env,
          onStage: stageReporter(io),
          offline: options.offline,
        });
      } catch (error) {
        // Drift cannot be judged without the live schemas: a distinct exit code, so CI can tell the two apart.
        // PCO111 here is a variable introspection needs (a database password) that is not set.
        if (!(error instanceof DiagnosticError) || !error.diagnostics.some((d) => d.code === 'PCO201' || d.code === 'PCO111')) throw error;
        io.stderr(formatDiagnosticReport(error.diagnostics));
        throw new CommanderError(3, 'portico.cannotIntrospect', 'Cannot introspect.');
      }
      // The warnings gen build prints, so a CI check for drift shows them too; they do not change the exit code.
      for (const warning of [...introspectionWarnings(result), ...hookWarnings(result)]) io.stderr(`${warning}\n`);
      const { outDir, drift } = result;
      const dir = displayDir(io, outDir);
      if (drift.upToDate) {
        if (io.isTTY) io.stdout(`${dir} is up to date.\n`);
        return;
      }
      io.stdout(drift.diff);
      io.stderr(
        `${dir} is out of date: ${drift.added.length} added, ${drift.changed.length} changed, ${drift.removed.length} removed. Run \`gen build ${shellWord(configPath)}\` to update it.\n`,
      );
      throw new CommanderError(1, 'portico.outOfDate', `${dir} is out of date.`);
    });
}
