/**
 * The Portico side of the broker benchmark: services `amqp` (RabbitMQ), `mqtt` (Mosquitto), a
 * SQLite `db` with one table, and `agent` (mcp), served on 127.0.0.1. Prints
 * `<url> <api key> <session token>` once listening.
 *
 * Env: AMQP_URL, MQTT_URL, QUEUE (declared, durable), PORT (0 for any).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ServiceModel } from '#runtime/model/platform-model.js';
import { getServiceKind } from '#runtime/services/registry.js';
import { minimalModel } from '#test/helpers/platform-fixtures.js';
import { announcePortico } from './launch.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-broker-bench-'));
const db = new Database(path.join(dir, 'bench.sqlite'));
db.exec('create table item (id integer primary key autoincrement, name text not null)');
const insert = db.prepare('insert into item (name) values (?)');
for (let i = 0; i < 100; i++) insert.run(`item ${i}`);
db.close();
const service = (id: number, name: string, type: string, config: Record<string, unknown>): ServiceModel => ({
  id,
  name,
  label: name,
  type,
  description: '',
  is_active: true,
  origin: 'platform',
  kind: 'plain',
  config,
});
const sqlite = await getServiceKind('sqlite')!.introspect!(service(20, 'db', 'sqlite', { database: 'bench.sqlite' }), {
  baseDir: dir,
  resolveEnv: <T>(value: T) => value,
});
const model = minimalModel();
await announcePortico(
  {
    ...model,
    services: [
      ...model.services,
      sqlite,
      service(21, 'amqp', 'amqp', { url: process.env.AMQP_URL, queues: [{ name: process.env.QUEUE, durable: true }] }),
      service(22, 'mqtt', 'mqtt', { url: process.env.MQTT_URL }),
      service(23, 'agent', 'mcp', {}),
    ],
  },
  dir,
);
