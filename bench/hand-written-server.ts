/**
 * The yardstick: a minimal hand-written Fastify + better-sqlite3 server doing the same work as
 * Portico's generated server for the benchmarked requests — the same credential check (API key
 * lookup, HS256 session token with user id and expiry), the same connection settings (WAL,
 * foreign keys enforced) and the same queries as prepared statements, with nothing else.
 *
 * Env: PORT, DATABASE (SQLite file), API_KEY, JWT_SECRET.
 */
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { createAuthCheck } from './hand-written-auth.js';

const db = new Database(process.env.DATABASE!);
db.pragma('journal_mode = WAL');
db.pragma('foreign_keys = ON');
const authorised = createAuthCheck(process.env.API_KEY!, process.env.JWT_SECRET!);

const list = db.prepare('SELECT * FROM orders WHERE status = ? ORDER BY id LIMIT ?');
const byId = db.prepare('SELECT * FROM orders WHERE id = ?');
const insert = db.prepare('INSERT INTO orders (customer_id, status, total, note) VALUES (?, ?, ?, ?)');
const patch = db.prepare('UPDATE orders SET status = ?, note = ? WHERE id = ?');

const app = Fastify();
app.get('/api/v2/db/_table/orders', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const query = request.query as { filter?: string; limit?: string };
  const match = /^status\s*=\s*'([^']*)'$/.exec(query.filter ?? '');
  return { resource: list.all(match?.[1] ?? '', Number(query.limit ?? 1000)) };
});
app.get('/api/v2/db/_table/orders/:id', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const row = byId.get(Number((request.params as { id: string }).id));
  return row ?? reply.status(404).send({ error: { code: 404, message: 'Record not found.' } });
});
app.post('/api/v2/db/_table/orders', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const { resource } = request.body as { resource: Array<{ customer_id: number; status: string; total: number; note: string }> };
  return { resource: resource.map((r) => ({ id: Number(insert.run(r.customer_id, r.status, r.total, r.note).lastInsertRowid) })) };
});
app.patch('/api/v2/db/_table/orders/:id', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const id = Number((request.params as { id: string }).id);
  const { status, note } = request.body as { status: string; note: string };
  if (patch.run(status, note, id).changes === 0) return reply.status(404).send({ error: { code: 404, message: 'Record not found.' } });
  return { id };
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(`listening on ${address}`);
