/**
 * The service-kind registry: the only list of service types. GET /system/service_type and the
 * config validation read it; nothing else hard-codes the kinds.
 */
import { amqpKind } from './broker/amqp-kind.js';
import { mqttKind } from './broker/mqtt-kind.js';
import { redisCacheKind } from './cache/redis-cache-kind.js';
import { customKind } from './custom/custom-kind.js';
import { fileServiceKinds } from './file/file-kinds.js';
import { mcpKind } from './mcp/mcp-kind.js';
import { plainServiceKinds } from './plain/plain-service-kinds.js';
import { rwsKind } from './rws/rws-kind.js';
import type { ServiceKind } from './service-kind.js';
import { soapKind } from './soap/soap-kind.js';
import { sqlServiceKinds } from './sql/sql-service-kinds.js';

const kinds = new Map<string, ServiceKind>(
  [
    ...plainServiceKinds,
    ...fileServiceKinds,
    ...sqlServiceKinds,
    soapKind,
    rwsKind,
    redisCacheKind,
    amqpKind,
    mqttKind,
    mcpKind,
    customKind,
  ].map((kind) => [kind.type, kind]),
);

/** The kind of a service type id, or undefined. */
export function getServiceKind(type: string): ServiceKind | undefined {
  return kinds.get(type);
}

/** Every kind, sorted by type id. */
export function listServiceKinds(): ServiceKind[] {
  return [...kinds.values()].sort((a, b) => a.type.localeCompare(b.type));
}
