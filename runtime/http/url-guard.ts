/**
 * Refuses URLs carrying text no database stores faithfully (an encoded NUL, `%00`, anywhere; lone
 * surrogates in query values) before any service sees them, alike for every service and database.
 */
import type { FastifyInstance } from 'fastify';
import { coreMessages } from '../core/messages.js';
import { unacceptableText } from '../core/request-limits.js';

export function installUrlGuard(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.includes('%00')) {
      done(coreMessages.nulInUrl.error());
      return;
    }
    const query = request.query as Record<string, string | string[] | undefined>;
    for (const key in query) {
      const values = [key, query[key] ?? []].flat();
      for (const value of values) {
        const reason = unacceptableText(value);
        if (reason !== null) {
          done(coreMessages.invalidQueryText.error(key, reason));
          return;
        }
      }
    }
    done();
  });
}
