/**
 * Routes for operators, outside /api/v2 and without credentials: `GET /health` (liveness: the
 * process serves; no database work) and `GET /ready` (the system database and every active
 * database service answer; 503 naming the services that do not).
 */
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from './platform-context.js';
import { getServiceKind } from '../services/registry.js';

/** A back-end that takes longer than this to answer a readiness check counts as down. */
const READY_TIMEOUT_MS = 5_000;

export function registerOperationsRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_request, reply) => {
    const failing = await failingServices(ctx);
    if (failing.length === 0) return { status: 'ready' };
    return reply.code(503).send({ status: 'not ready', failing });
  });
}

/** Names of the back-ends that do not answer: `system` for the system database, else service names. */
async function failingServices(ctx: PlatformContext): Promise<string[]> {
  const checks: Array<[string, () => Promise<unknown>]> = [['system', () => sql`select 1`.execute(ctx.db)]];
  for (const service of ctx.services.list()) {
    // By type, not by model kind: a stored service whose database could not be read at start is served from a plain model.
    if (getServiceKind(service.type)?.group !== 'Database' || !service.is_active) continue;
    checks.push([service.name, async () => (await ctx.services.handler(service.name)).ping?.()]);
  }
  const results = await Promise.all(checks.map(async ([name, check]) => ((await answersWithin(check)) ? null : name)));
  return results.filter((name): name is string => name !== null);
}

async function answersWithin(check: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      check().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
