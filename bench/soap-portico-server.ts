/**
 * The Portico side of the SOAP benchmark: a platform with the corpus Calculator as SOAP service
 * `calc` (endpoint: the peer), built as `gen build` would (introspection of the WSDL), served on
 * 127.0.0.1. Prints `<url> <api key> <session token>` once listening.
 *
 * Env: PEER_URL (endpoint of the peer), PORT (0 for any).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer } from '#runtime/http/create-server.js';
import type { ServiceModel } from '#runtime/model/platform-model.js';
import { soapKind } from '#runtime/services/soap/soap-kind.js';
import { minimalModel } from '#test/helpers/platform-fixtures.js';
import { CALCULATOR_WSDL } from './shared-corpus.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-soap-bench-'));
const ctx = { baseDir: dir, resolveEnv: <T>(value: T) => value };
const calc = await soapKind.introspect!(
  {
    id: 8,
    name: 'calc',
    label: 'Calculator',
    type: 'soap',
    description: '',
    is_active: true,
    origin: 'platform',
    kind: 'plain',
    config: { wsdl: CALCULATOR_WSDL, options: { location: process.env.PEER_URL } },
  } satisfies ServiceModel,
  ctx,
);
const model = minimalModel();
const app = await createServer({ ...model, services: [...model.services, calc] }, { baseDir: dir, systemDatabase: ':memory:', env: {} });
const { api_key: apiKey } = await app.portico.db.selectFrom('app').select('api_key').where('name', '=', 'admin').executeTakeFirstOrThrow();
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
const login = await fetch(`${address}/api/v2/system/admin/session`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey },
  body: JSON.stringify({ email: model.admins[0].email, password: model.admins[0].password }),
});
const { session_token: token } = (await login.json()) as { session_token: string };
console.log(`${address} ${apiKey} ${token}`);
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => fs.rmSync(dir, { recursive: true, force: true }))
    .finally(() => process.exit(0));
});
