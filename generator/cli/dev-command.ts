import { InvalidArgumentError, type Command } from 'commander';
import type { CliIo } from './cli-io.js';

const DEFAULT_POLL = '10s';

/**
 * `gen dev [platform.yaml] [-o dir] [-p port] [--poll 10s|off]`: build and serve, rebuilding on a
 * change of platform.yaml, a local WSDL file or (polled) a database schema; each rebuild prints
 * the generated files it changed and reloads the server without dropping requests in flight.
 */
export function addDevCommand(program: Command, io: CliIo): void {
  program
    .command('dev')
    .description('Build and serve, rebuilding and reloading when platform.yaml, a WSDL file or a database schema changes.')
    .argument('[platform.yaml]', 'platform config', 'platform.yaml')
    .option('-o, --out <dir>', 'output directory (default: <platform dir>/server)')
    .option('-p, --port <port>', 'port to listen on (default: PORT, else 8080)')
    .option(
      '--poll <interval>',
      `how often database schemas are introspected for changes: 5s, 500ms, 2m or off (default ${DEFAULT_POLL})`,
      (value) => {
        try {
          return parseInterval(value);
        } catch (error) {
          throw new InvalidArgumentError((error as Error).message);
        }
      },
    )
    .addHelpText(
      'after',
      [
        '',
        'Watches platform.yaml and the WSDL files it names (with the .wsdl/.xsd files beside them);',
        'a rebuild prints the generated files it added, changed or removed. The port stays open across',
        'reloads: requests already running finish on the build they started on.',
        '',
        'Environment: PORT, HOST (default 127.0.0.1), and those of `gen serve`.',
      ].join('\n'),
    )
    .action(async (configPath: string, options: { out?: string; port?: string; poll?: number | null | '' }, command: Command) => {
      const [{ DevServer }, { listenAddress }] = await Promise.all([
        import('../dev/dev-server.js'),
        import('../../runtime/http/run-server.js'),
      ]);
      let address: { port: number; host: string };
      try {
        address = listenAddress({ PORT: options.port ?? io.env.PORT, HOST: io.env.HOST });
      } catch (error) {
        const message = (error as Error).message;
        return command.error(`error: ${options.port === undefined ? message : message.replace('PORT', '--port')}`);
      }
      const dev = new DevServer(
        {
          configPath,
          outDir: options.out,
          ...address,
          // Commander keeps a parser's null (`--poll off`) as '': both mean no polling.
          pollMs: options.poll === undefined ? parseInterval(DEFAULT_POLL) : options.poll || null,
        },
        io,
      );
      // A promise a hook or endpoint rejects with nothing waiting for it is reported: Node's default would end gen dev.
      const stray = (reason: unknown) =>
        io.stderr(
          `A promise was rejected with nothing waiting for it (a hook or endpoint that did not await a call?); still serving: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`,
        );
      process.on('unhandledRejection', stray);
      await dev.start();
      // Serves until interrupted; requests in flight finish before the process ends.
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          process.off('unhandledRejection', stray);
          void dev.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}

/** `5s`, `500ms`, `2m`, a number of seconds, or `off`/`0`: milliseconds, or null for no polling. */
export function parseInterval(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/i.exec(text);
  if (/^\s*(off|no|false|none)\s*$/i.test(text)) return null;
  if (!match) throw new Error(`'${text}' is not an interval: write 5s, 500ms, 2m or off.`);
  const value = Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[(match[2] ?? 's').toLowerCase() as 'ms' | 's' | 'm'];
  return value === 0 ? null : Math.max(100, Math.round(value));
}
