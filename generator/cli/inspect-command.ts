import type { Command } from 'commander';
import { stageReporter, type CliIo } from './cli-io.js';

/** `gen inspect <platform.yaml>`: the PlatformModel as JSON on stdout. */
export function addInspectCommand(program: Command, io: CliIo): void {
  program
    .command('inspect')
    .description('Print the platform model (config plus introspection) as JSON.')
    .argument('[platform.yaml]', 'platform config', 'platform.yaml')
    .action(async (configPath: string) => {
      const { modelPlatform } = await import('../pipeline.js');
      const { model } = await modelPlatform({ configPath, cwd: io.cwd, env: io.env, onStage: stageReporter(io) });
      io.stdout(`${JSON.stringify(model, null, 2)}\n`);
    });
}
