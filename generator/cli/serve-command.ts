import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { DiagnosticError } from '../diagnostics.js';
import { SERVER_ENTRY } from '../emit/create-main-file.js';
import { displayDir, planSummary, stageReporter, type CliIo } from './cli-io.js';

/** `gen serve <platform.yaml> [-o dir]`: build, then import the generated entry, which starts the server. */
export function addServeCommand(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description('Build when stale, then run the generated server.')
    .argument('[platform.yaml]', 'platform config', 'platform.yaml')
    .option('-o, --out <dir>', 'output directory (default: <platform dir>/server)')
    .option('-w, --workers <n>', 'worker processes serving one port (default: PORTICO_WORKERS, else 1)')
    .addHelpText(
      'after',
      [
        '',
        'Environment:',
        '  PORT, HOST                 where to listen (default 127.0.0.1:8080)',
        '  PORTICO_ADMIN_EMAIL        first administrator, when platform.yaml declares none',
        '  PORTICO_ADMIN_PASSWORD     its password (generated and printed when unset)',
        '  PORTICO_SYSTEM_DATABASE_URL  system database (postgres://... or mysql://...), over platform.yaml',
        '  PORTICO_JWT_SECRET         session token signing secret (else one kept in the system database)',
        '  PORTICO_REDIS_URL          Redis shared by instances (rate-limit counters, change news)',
        '  PORTICO_WORKERS            worker processes (as --workers)',
      ].join('\n'),
    )
    .action(async (configPath: string, options: { out?: string; workers?: string }) => {
      // The generated server reads the count from the environment (its workers inherit it).
      if (options.workers !== undefined) process.env.PORTICO_WORKERS = options.workers;
      const { buildPlatform } = await import('../pipeline.js');
      const { outDir, files, plan } = await buildPlatform({
        configPath,
        outDir: options.out,
        cwd: io.cwd,
        env: io.env,
        onStage: stageReporter(io),
      });
      if (!files.has(SERVER_ENTRY)) {
        throw new DiagnosticError([
          { code: 'PCO501', message: `The generated server in ${displayDir(io, outDir)} has no ${SERVER_ENTRY}.` },
        ]);
      }
      if (io.isTTY) io.stdout(planSummary(io, outDir, plan));
      // The generated entry is plain JavaScript; importing it runs it: its runServer listens and prints the URL, the admin app's API key and the first admin.
      await import(pathToFileURL(path.join(outDir, SERVER_ENTRY)).href);
    });
}
