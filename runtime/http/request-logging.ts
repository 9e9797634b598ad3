/**
 * Request logs: Fastify's own logger (pino), one JSON line per finished request with its request
 * id, method, URL, status and time. Secrets never reach a line: headers and bodies are not
 * logged, and credential-like query parameters are masked in the URL. The lines of one turn of
 * the event loop leave stdout in one write (see BatchedLines).
 */
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import pino from 'pino';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Query parameters whose values are credentials (api_key, session_token, a password, ...). */
const SECRET_PARAMETER = /([?&](?:[^&=]*(?:key|token|password|secret|jwt|code|ticket)[^&=]*)=)[^&]*/gi;

export function maskSecrets(url: string): string {
  return url.replace(SECRET_PARAMETER, '$1***');
}

/** PORTICO_LOG_LEVEL: a pino level or `silent`; anything else stops the server with one line. */
export function logLevelFrom(value: string | undefined): string {
  const level = (value ?? '').trim().toLowerCase() || 'info';
  if (!LEVELS.includes(level)) throw new Error(`PORTICO_LOG_LEVEL must be one of ${LEVELS.join(', ')}, not '${value}'.`);
  return level;
}

/** Fastify's request lines, one per request: nothing on arrival, the whole request on completion. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: Math.round(reply.elapsedTime * 100) / 100 };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/**
 * Collects the lines written during one turn of the event loop and writes them together once it
 * ends: a busy server finishes several requests per turn, and one write per line cost about as
 * much as formatting it. Nothing waits longer than the turn; what is left is written at exit.
 */
class BatchedLines {
  private pending: string[] = [];

  constructor(private readonly out: { write(text: string): unknown }) {
    process.once('exit', this.flush);
  }

  write(line: string): void {
    if (this.pending.push(line) === 1) setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.out.write(text);
  };
}

let stdout: BatchedLines | undefined;

/** One batching stream on stdout for the process, however many servers it runs. */
function stdoutLines(): BatchedLines {
  stdout ??= new BatchedLines(pino.destination({ dest: 1, sync: true }));
  return stdout;
}

/** Fastify options for a server logging at `level` (undefined: no logger at all). */
export function loggerOptions(level: string | undefined): Pick<FastifyServerOptions, 'logger' | 'logController' | 'requestIdHeader'> {
  if (level === undefined || level === 'silent') return { logger: false };
  return {
    logger: {
      level,
      stream: stdoutLines(),
      serializers: {
        req: (request) => ({ method: request.method, url: maskSecrets(request.url), remoteAddress: request.ip }),
        res: (reply) => ({ statusCode: reply.statusCode }),
      },
    },
    logController: new OneLinePerRequest(),
    requestIdHeader: 'x-request-id',
  };
}
