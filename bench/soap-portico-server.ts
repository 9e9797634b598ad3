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
import type { ServiceModel } from '#runtime/model/platform-model.js';
import { soapKind } from '#runtime/services/soap/soap-kind.js';
import { minimalModel } from '#test/helpers/platform-fixtures.js';
import { announcePortico } from './launch.js';
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
await announcePortico({ ...model, services: [...model.services, calc] }, dir);
