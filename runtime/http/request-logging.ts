/**
 * Request logs: Fastify's own logger (pino), one JSON line per finished request with its request
 * id, method, URL, status and time. Secrets never reach a line: headers and bodies are not
 * logged, and credential-like query parameters are masked in the URL.
 */
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';

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

/** Fastify options for a server logging at `level` (undefined: no logger at all). */
export function loggerOptions(level: string | undefined): Pick<FastifyServerOptions, 'logger' | 'logController' | 'requestIdHeader'> {
  if (level === undefined || level === 'silent') return { logger: false };
  return {
    logger: {
      level,
      serializers: {
        req: (request) => ({ method: request.method, url: maskSecrets(request.url), remoteAddress: request.ip }),
        res: (reply) => ({ statusCode: reply.statusCode }),
      },
    },
    logController: new OneLinePerRequest(),
    requestIdHeader: 'x-request-id',
  };
}
