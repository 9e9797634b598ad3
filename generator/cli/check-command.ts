import { CommanderError, type Command } from 'commander';
import { checkPlatform } from '../pipeline.js';
import { displayDir, stageReporter, type CliIo } from './cli-io.js';

/** `gen check <platform.yaml> [-o dir]`: exit 1 with a diff on drift. */
export function addCheckCommand(program: Command, io: CliIo): void {
  program
    .command('check')
    .description('Exit 1 with a diff when the generated server differs from what the config and the live schemas produce now.')
    .argument('[platform.yaml]', 'platform config', 'platform.yaml')
    .option('-o, --out <dir>', 'output directory (default: <platform dir>/server)')
    .action(async (configPath: string, options: { out?: string }) => {
      const { outDir, drift } = await checkPlatform({ configPath, outDir: options.out, cwd: io.cwd, env: io.env, onStage: stageReporter(io) });
      const dir = displayDir(io, outDir);
      if (drift.upToDate) {
        if (io.isTTY) io.stdout(`${dir} is up to date.\n`);
        return;
      }
      io.stdout(drift.diff);
      io.stderr(`${dir} is out of date: ${drift.added.length} added, ${drift.changed.length} changed, ${drift.removed.length} removed. Run \`gen build ${configPath}\` to update it.\n`);
      throw new CommanderError(1, 'portico.outOfDate', `${dir} is out of date.`);
    });
}
