/**
 * Answers CORS from the rules of /system/cors (see cors-rules.ts): headers on actual requests,
 * 204 on preflights. A request without an Origin header is not cross-origin and costs nothing
 * here; this replaced @fastify/cors, whose per-request delegator cost ~7% of a record read.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { CorsRules } from './cors-rules.js';
import { coreMessages } from '../core/messages.js';

/** The onRequest step answering CORS (run by the server's one onRequest hook, create-server.ts). */
export function corsStep(rules: CorsRules): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  return (request, reply, done) => {
    // Any response may differ by Origin once a rule exists: caches must keep them apart.
    if (rules.any) void reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined) return done();
    const path = request.url.split('?')[0].replace(/^\/+/, '');
    const decision = rules.decide(path, origin);
    if (decision.origin === false) return done();
    void reply.header('access-control-allow-origin', decision.origin);
    if (decision.credentials) void reply.header('access-control-allow-credentials', 'true');
    if (decision.exposedHeaders && decision.exposedHeaders.length > 0)
      void reply.header('access-control-expose-headers', decision.exposedHeaders.join(', '));
    if (request.method !== 'OPTIONS') return done();
    const method = request.headers['access-control-request-method'];
    if (method === undefined) {
      void reply.status(400).send(coreMessages.preflightWithoutMethod.error().toBody());
      return;
    }
    // A method the rule does not allow: 405, as the reference answers such a preflight.
    const asked = method.trim().toUpperCase().slice(0, 32);
    if (!decision.methods!.includes(asked)) {
      void reply.status(405).send(coreMessages.preflightMethodNotAllowed.error(asked).toBody());
      return;
    }
    void reply.header('access-control-allow-methods', decision.methods!.join(', '));
    // A rule allowing any header answers with the headers asked for, as the reference does: a
    // literal `*` is no wildcard for a credentialed request, whose custom headers it would refuse.
    const requested = request.headers['access-control-request-headers'];
    const echo = decision.anyHeader === true && typeof requested === 'string' && requested.trim() !== '';
    void reply.header('access-control-allow-headers', echo ? requested : decision.allowedHeaders!.join(', '));
    if (decision.anyHeader) void reply.header('vary', 'Origin, Access-Control-Request-Headers');
    if (decision.maxAge !== undefined) void reply.header('access-control-max-age', String(decision.maxAge));
    // Some browsers wait for a body on a 204 without Content-Length.
    void reply.status(204).header('content-length', '0').send();
  };
}

/** Preflights the CORS step did not answer (no matching rule) end here. */
export function endUnansweredPreflights(app: FastifyInstance): void {
  app.options('*', (_request, reply) => {
    reply.callNotFound();
  });
}
