import type { Command } from 'commander';
import { buildSummary, stageReporter, type CliIo } from './cli-io.js';

/** `gen build [platform.yaml] [-o dir] [--dry-run]`: writes the server and prints a one-line summary. */
export function addBuildCommand(program: Command, io: CliIo): void {
  program
    .command('build')
    .description('Generate the server of a platform: write changed files, prune stale generated ones.')
    .argument('[platform.yaml]', 'platform config', 'platform.yaml')
    .option('-o, --out <dir>', 'output directory (default: <platform dir>/server)')
    .option('--dry-run', 'show what would change without writing')
    .action(async (configPath: string, options: { out?: string; dryRun?: boolean }) => {
      const start = performance.now();
      const { buildPlatform, hookWarnings, introspectionWarnings } = await import('../pipeline.js');
      const built = await buildPlatform({
        configPath,
        outDir: options.out,
        dryRun: options.dryRun,
        cwd: io.cwd,
        env: io.env,
        onStage: stageReporter(io),
      });
      const { outDir, plan, model } = built;
      for (const warning of [...introspectionWarnings(built), ...hookWarnings(built)]) io.stderr(`${warning}\n`);
      if (options.dryRun) {
        const lines = [
          ...plan.added.map((file) => `add     ${file}`),
          ...plan.changed.map((file) => `change  ${file}`),
          ...plan.removed.map((file) => `remove  ${file}`),
        ];
        io.stdout(lines.map((line) => `${line}\n`).join(''));
      }
      io.stdout(buildSummary(io, outDir, model, plan, performance.now() - start, options.dryRun ? 'Would build' : 'Built'));
    });
}
