/** A broker service kind (group IoT) from what its protocol adds: the client, the config schema and the documents' wording. */
import type { ServiceKind } from '../service-kind.js';
import type { BrokerClient } from './broker-client.js';
import { BrokerHandler, brokerOpenApi, type BrokerDocs } from './broker-handler.js';

export interface BrokerKindParts {
  type: string;
  label: string;
  description: string;
  configSchema: Record<string, unknown>;
  docs: BrokerDocs;
  /** The protocol client of a service, from its resolved config (paths relative to `baseDir`). */
  client(service: string, config: Record<string, unknown>, baseDir: string): BrokerClient;
}

export function brokerKind(parts: BrokerKindParts): ServiceKind {
  const { type, label, description, configSchema, docs } = parts;
  return {
    type,
    label,
    group: 'IoT',
    description,
    configSchema,
    describe: () => brokerOpenApi(docs),
    async open(service, ctx) {
      return new BrokerHandler(service.name, parts.client(service.name, ctx.resolveEnv(service.config), ctx.baseDir), docs);
    },
  };
}
