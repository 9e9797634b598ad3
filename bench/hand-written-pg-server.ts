/**
 * The PostgreSQL yardstick: the hand-written server of hand-written-server.ts over node-postgres —
 * the same credential check (API key, HS256 session token with user id and expiry) and the same
 * four queries as named prepared statements, on a pool of 10 that keeps idle connections for a
 * minute (Portico's defaults), returning dates and times as text as Portico does.
 *
 * Env: PORT, DATABASE_URL, API_KEY, JWT_SECRET.
 */
import Fastify from 'fastify';
import pg from 'pg';
import { createAuthCheck } from './hand-written-auth.js';

// Timestamps as PostgreSQL writes them, as Portico returns them (no Date objects to build and serialise).
for (const oid of [1082, 1083, 1114, 1184]) pg.types.setTypeParser(oid, (value: string) => value);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 10, idleTimeoutMillis: 60_000 });
const authorised = createAuthCheck(process.env.API_KEY!, process.env.JWT_SECRET!);

const list = { name: 'list', text: 'SELECT * FROM orders WHERE status = $1 ORDER BY id LIMIT $2' };
const byId = { name: 'by_id', text: 'SELECT * FROM orders WHERE id = $1' };
const insert = { name: 'insert', text: 'INSERT INTO orders (customer_id, status, total, note) VALUES ($1, $2, $3, $4) RETURNING id' };
const patch = { name: 'patch', text: 'UPDATE orders SET status = $1, note = $2 WHERE id = $3' };

const app = Fastify();
app.get('/api/v2/db/_table/orders', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const query = request.query as { filter?: string; limit?: string };
  const match = /^status\s*=\s*'([^']*)'$/.exec(query.filter ?? '');
  const { rows } = await pool.query({ ...list, values: [match?.[1] ?? '', Number(query.limit ?? 1000)] });
  return { resource: rows };
});
app.get('/api/v2/db/_table/orders/:id', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const { rows } = await pool.query({ ...byId, values: [Number((request.params as { id: string }).id)] });
  return rows[0] ?? reply.status(404).send({ error: { code: 404, message: 'Record not found.' } });
});
app.post('/api/v2/db/_table/orders', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const { resource } = request.body as { resource: Array<{ customer_id: number; status: string; total: number; note: string }> };
  const ids = [];
  for (const r of resource) {
    const { rows } = await pool.query({ ...insert, values: [r.customer_id, r.status, r.total, r.note] });
    ids.push({ id: rows[0].id as number });
  }
  return { resource: ids };
});
app.patch('/api/v2/db/_table/orders/:id', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const id = Number((request.params as { id: string }).id);
  const { status, note } = request.body as { status: string; note: string };
  const { rowCount } = await pool.query({ ...patch, values: [status, note, id] });
  if (rowCount === 0) return reply.status(404).send({ error: { code: 404, message: 'Record not found.' } });
  return { id };
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(`listening on ${address}`);
