/**
 * Request logs: pino under Fastify, one JSON line per finished request with its request id,
 * method, URL, status and time. Secrets never reach a line: headers and bodies are not logged,
 * and credential-like query parameters are masked in the URL. The lines of one turn of the event
 * loop leave stdout in one write (see BatchedLines).
 */
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
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

/** `responseTime` as its number prints, from integers: printing a fraction cost more than the rest of the line. */
function responseTimeText(reply: FastifyReply): string {
  const hundredths = Math.round(reply.elapsedTime * 100);
  const whole = Math.floor(hundredths / 100);
  const rest = hundredths - whole * 100;
  if (rest === 0) return `${whole}`;
  return rest % 10 === 0 ? `${whole}.${rest / 10}` : `${whole}.${rest < 10 ? '0' : ''}${rest}`;
}

/** A character JSON escapes (a control, `"`, `\`) or one beyond ASCII: such text is left to JSON.stringify. */
const NEEDS_ESCAPE = /[^ !#-[\]-~]/;

// The fields pino writes first on every line of this process.
const LINE_PROCESS = `,"pid":${process.pid},"hostname":${JSON.stringify(os.hostname())}`;

// Date.now() as text, printed once per millisecond: a busy server finishes several requests in one.
let lineMs = 0;
let lineMsText = '0';

/**
 * The line pino would write for a completed request (the same fields, in the same order), built
 * directly: this line is written for every request, and pino's generic formatting of it cost
 * about three times as much.
 */
function completedLine(request: FastifyRequest, reply: FastifyReply): string {
  const url = request.url.includes('=') ? maskSecrets(request.url) : request.url;
  const ms = Date.now();
  if (ms !== lineMs) {
    lineMs = ms;
    lineMsText = `${ms}`;
  }
  const id = request.id as unknown;
  const ip = request.ip as string | undefined;
  // Ids, URLs and addresses nearly never need escaping: quoted as they are (a method is one of Node's tokens).
  // Scanning and quoting each field apart cost more than the rest of the line.
  const about =
    typeof id === 'string' && typeof ip === 'string' && !NEEDS_ESCAPE.test(id) && !NEEDS_ESCAPE.test(url)
      ? `"reqId":"${id}","req":{"method":"${request.method}","url":"${url}","remoteAddress":"${ip}"}`
      : `"reqId":${JSON.stringify(id)},"req":${JSON.stringify({ method: request.method, url, remoteAddress: ip })}`;
  return (
    `{"level":30,"time":${lineMsText}${LINE_PROCESS},${about},` +
    `"res":{"statusCode":${reply.statusCode}},"responseTime":${responseTimeText(reply)},"msg":"request completed"}\n`
  );
}

/**
 * Collects log lines and writes them together: at most FLUSH_MS after the first, or at once when
 * FLUSH_BYTES are waiting. A write per line cost about as much as formatting it; a busy server now
 * makes one write per many requests.
 *
 * Writes never block the server: they are asynchronous, and when whatever reads stdout falls
 * behind (a stalled log collector, a full pipe) at most MAX_PENDING_BYTES wait; lines beyond that
 * are dropped, and the next line written says how many. (A synchronous write to a full pipe
 * stopped every request until the reader came back.) What is left is written at exit, as far as
 * the reader takes it.
 */
const FLUSH_MS = 50;
const FLUSH_BYTES = 16 * 1024;
const MAX_PENDING_BYTES = 1024 * 1024;

class BatchedLines {
  private pending: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Lines dropped since the last write that went through. */
  private dropped = 0;
  private lastWriteDropped = false;
  private exiting = false;
  private readonly out: ReturnType<typeof pino.destination>;

  constructor(fd: number) {
    this.out = pino.destination({
      dest: fd,
      sync: false,
      maxLength: MAX_PENDING_BYTES,
      // A full pipe is retried later, except at exit, where the process must not wait for a reader.
      retryEAGAIN: () => !this.exiting,
    });
    this.out.on('drop', () => {
      this.lastWriteDropped = true;
    });
    // Write errors (the reader closed stdout) must not stop the server: its logs are lost either way.
    this.out.on('error', () => {});
    process.once('exit', () => {
      this.exiting = true;
      this.flush();
      try {
        this.out.flushSync();
      } catch {
        // stdout is full or closed: what is left is lost.
      }
    });
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
    const text = (this.dropped > 0 ? droppedLine(this.dropped) : '') + this.pending.join('');
    this.pending = [];
    this.bytes = 0;
    this.lastWriteDropped = false;
    this.out.write(text);
    // 'drop' is emitted during write(): these lines (with the notice, which counts for itself) are gone too.
    this.dropped = this.lastWriteDropped ? this.dropped + lineCount(text) - (this.dropped > 0 ? 1 : 0) : 0;
  };
}

function lineCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** A warning in pino's format: `count` lines were dropped because stdout was not being read. */
function droppedLine(count: number): string {
  return (
    `{"level":40,"time":${Date.now()}${LINE_PROCESS},` +
    `"msg":"${count} log line${count === 1 ? ' was' : 's were'} dropped: standard output was not being read fast enough"}\n`
  );
}

let stdout: BatchedLines | undefined;

/** One batching stream on stdout for the process, however many servers it runs. */
function stdoutLines(): BatchedLines {
  stdout ??= new BatchedLines(1);
  return stdout;
}

type LineLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A child logger whose pino child is made when a line at an enabled level is first written to it.
 * Fastify makes a child per request (request.log, reply.log) and nearly none is written to (the
 * completed line is built by hand): a pino child per request cost about 6k instructions.
 */
class DeferredLogger {
  private made: pino.Logger | undefined;

  /** Without `bindings`: `parent` itself, as a logger whose children are deferred. */
  constructor(
    private readonly parent: pino.Logger,
    private readonly bindings?: pino.Bindings,
    private readonly options?: pino.ChildLoggerOptions,
  ) {
    if (bindings === undefined) this.made = parent;
    // A level of its own decides what is written: made at once (Fastify passes one only for a route's logLevel).
    else if (options?.level !== undefined) this.made = parent.child(bindings, options);
  }

  private logger(): pino.Logger {
    this.made ??= this.parent.child(this.bindings!, this.options);
    return this.made;
  }

  private write(level: LineLevel, args: unknown[]): void {
    if (!(this.made ?? this.parent).isLevelEnabled(level)) return;
    const logger = this.logger();
    (logger[level] as (...line: unknown[]) => void).apply(logger, args);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): DeferredLogger {
    return new DeferredLogger(this.logger(), bindings, options);
  }
}

/** What lines show of a request and a reply. Fastify's own `req` has the URL unmasked, its version, host and port. */
const SERIALIZERS = {
  req: (request: FastifyRequest) => ({ method: request.method, url: maskSecrets(request.url), remoteAddress: request.ip }),
  res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
};

/**
 * Fastify options for a server logging at `level` (undefined: no logger at all) to stdout, or to
 * file descriptor `fd`. `app.log` and every line Fastify writes are pino's; only the per-request
 * children are deferred.
 */
export function loggerOptions(
  level: string | undefined,
  fd = 1,
): Pick<FastifyServerOptions, 'logger' | 'loggerInstance' | 'logController' | 'requestIdHeader'> {
  if (level === undefined || level === 'silent') return { logger: false };
  const out = fd === 1 ? stdoutLines() : new BatchedLines(fd);
  const root = pino({ level, serializers: SERIALIZERS }, out);
  // Fastify lays its serializers under the instance's `serializers` and makes app.log a child of it.
  const instance = Object.assign(new DeferredLogger(root), { serializers: SERIALIZERS });
  return {
    loggerInstance: instance as unknown as FastifyBaseLogger,
    logController: new OneLinePerRequest(['trace', 'debug', 'info'].includes(level) ? out : null),
    requestIdHeader: 'x-request-id',
  };
}
