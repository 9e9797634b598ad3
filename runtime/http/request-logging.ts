/**
 * Request logs: Fastify's own logger (pino), one JSON line per finished request with its request
 * id, method, URL, status and time. Secrets never reach a line: headers and bodies are not
 * logged, and credential-like query parameters are masked in the URL.
 */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';

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

/** Fastify options for a server logging at `level` (undefined: no logger at all). */
export function loggerOptions(level: string | undefined): Pick<FastifyServerOptions, 'logger' | 'disableRequestLogging' | 'requestIdHeader'> {
  if (level === undefined || level === 'silent') return { logger: false };
  return {
    logger: {
      level,
      serializers: {
        req: (request) => ({ method: request.method, url: maskSecrets(request.url), remoteAddress: request.ip }),
        res: (reply) => ({ statusCode: reply.statusCode }),
      },
    },
    // One line per request (written on response) instead of Fastify's two.
    disableRequestLogging: true,
    requestIdHeader: 'x-request-id',
  };
}

export function installRequestLogging(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info({ req: request, res: reply, responseTime: Math.round(reply.elapsedTime * 100) / 100 }, 'request completed');
    done();
  });
}
