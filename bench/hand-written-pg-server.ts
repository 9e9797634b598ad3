/**
 * The PostgreSQL yardstick: the hand-written server of hand-written-server.ts over node-postgres —
 * the same credential check (API key, HS256 session token with user id and expiry) and the same
 * four queries, parameterised, on a pool of the same size as Portico's.
 *
 * Env: PORT, DATABASE_URL, API_KEY, JWT_SECRET.
 */
import Fastify from 'fastify';
import pg from 'pg';
import { createAuthCheck } from './hand-written-auth.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 10 });
const authorised = createAuthCheck(process.env.API_KEY!, process.env.JWT_SECRET!);

const app = Fastify();
app.get('/api/v2/db/_table/contact_info', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const query = request.query as { filter?: string; limit?: string };
  const match = /^info_type\s*=\s*'([^']*)'$/.exec(query.filter ?? '');
  const { rows } = await pool.query('SELECT * FROM contact_info WHERE info_type = $1 LIMIT $2', [match?.[1] ?? '', Number(query.limit ?? 1000)]);
  return { resource: rows };
});
app.get('/api/v2/db/_table/contact/:id', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const { rows } = await pool.query('SELECT * FROM contact WHERE id = $1', [Number((request.params as { id: string }).id)]);
  return rows[0] ?? reply.status(404).send({ error: { code: 404, message: 'Record not found.' } });
});
app.post('/api/v2/db/_table/contact', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const { resource } = request.body as { resource: Array<{ first_name: string; last_name: string; notes: string }> };
  const ids = [];
  for (const r of resource) {
    const { rows } = await pool.query('INSERT INTO contact (first_name, last_name, notes) VALUES ($1, $2, $3) RETURNING id', [r.first_name, r.last_name, r.notes]);
    ids.push({ id: rows[0].id as number });
  }
  return { resource: ids };
});
app.patch('/api/v2/db/_table/contact/:id', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const id = Number((request.params as { id: string }).id);
  const { notes } = request.body as { notes: string };
  const { rowCount } = await pool.query('UPDATE contact SET notes = $1 WHERE id = $2', [notes, id]);
  if (rowCount === 0) return reply.status(404).send({ error: { code: 404, message: 'Record not found.' } });
  return { id };
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(`listening on ${address}`);
