/**
 * The credential check both hand-written yardsticks do, as Portico does for a logged-in caller:
 * the API key matches, and the session token is an HS256 JWT with a user id that has not expired.
 */
import { createVerifier } from 'fast-jwt';
import type { FastifyReply, FastifyRequest } from 'fastify';

export function createAuthCheck(apiKey: string, jwtSecret: string): (request: FastifyRequest, reply: FastifyReply) => boolean {
  const verify = createVerifier({ key: jwtSecret, algorithms: ['HS256'], cache: 10_000 });
  return (request, reply) => {
    const token = request.headers['x-service-session-token'];
    try {
      if (request.headers['x-service-api-key'] !== apiKey || typeof token !== 'string') throw new Error('no credentials');
      const claims = verify(token) as { user_id: number };
      if (typeof claims.user_id !== 'number') throw new Error('no user');
      return true;
    } catch {
      void reply.status(401).send({ error: { code: 401, message: 'Unauthorized.' } });
      return false;
    }
  };
}
