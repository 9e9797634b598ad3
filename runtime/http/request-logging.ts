/**
 * Request logs: Fastify's own logger (pino), one JSON line per finished request with its request
 * id, method, URL, status and time. Secrets never reach a line: headers and bodies are not
 * logged, and credential-like query parameters are masked in the URL. The lines of one turn of
 * the event loop leave stdout in one write (see BatchedLines).
 */
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import os from 'node:os';
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
  /** `out`: where completed-request lines go, when the server's level shows info lines at all. */
  constructor(private readonly out: BatchedLines | null) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      const line = { req: request, res: reply, responseTime: responseTime(reply) };
      reply.log.error({ ...line, err: error }, 'request errored');
    } else this.out?.write(completedLine(request, reply));
  }
}

const responseTime = (reply: FastifyReply) => Math.round(reply.elapsedTime * 100) / 100;

// The fields pino writes first on every line of this process.
const LINE_PROCESS = `,"pid":${process.pid},"hostname":${JSON.stringify(os.hostname())}`;

/**
 * The line pino would write for a completed request (the same fields, in the same order), built
 * directly: this line is written for every request, and pino's generic formatting of it cost
 * about three times as much.
 */
function completedLine(request: FastifyRequest, reply: FastifyReply): string {
  const url = request.url.includes('=') ? maskSecrets(request.url) : request.url;
  return (
    `{"level":30,"time":${Date.now()}${LINE_PROCESS},"reqId":${JSON.stringify(request.id)},` +
    `"req":{"method":${JSON.stringify(request.method)},"url":${JSON.stringify(url)},"remoteAddress":${JSON.stringify(request.ip)}},` +
    `"res":{"statusCode":${reply.statusCode}},"responseTime":${responseTime(reply)},"msg":"request completed"}\n`
  );
}

/**
 * Collects log lines and writes them together: at most FLUSH_MS after the first, or at once when
 * FLUSH_BYTES are waiting. A write per line cost about as much as formatting it; a busy server now
 * makes one write per many requests. What is left is written at exit.
 */
const FLUSH_MS = 50;
const FLUSH_BYTES = 16 * 1024;

class BatchedLines {
  private pending: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly out: { write(text: string): unknown }) {
    process.once('exit', this.flush);
  }

  write(line: string): void {
    this.pending.push(line);
    this.bytes += line.length;
    if (this.bytes >= FLUSH_BYTES) this.flush();
    else if (this.timer === null) this.timer = setTimeout(this.flush, FLUSH_MS).unref();
  }

  private readonly flush = (): void => {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.bytes = 0;
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
    logController: new OneLinePerRequest(['trace', 'debug', 'info'].includes(level) ? stdoutLines() : null),
    requestIdHeader: 'x-request-id',
  };
}
