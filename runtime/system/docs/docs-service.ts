/**
 * Discovery: GET /api/v2/api_docs (every service in one document), /api/v2/api_docs/{service}
 * and /api/v2/{service}/_spec (one service's document).
 */
import type { OpenAPIObject } from 'openapi3-ts/oas30';
import { roleReaches } from '../../auth/access.js';
import { wrapList } from '../../core/envelope.js';
import { pick, type RawQuery, toBool } from '../../core/query-params.js';
import type { InternalService } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import type { ServiceModel, TableModel } from '../../model/platform-model.js';
import { API_VERSION, combinedDocument, serviceDocument } from '../../openapi/service-document.js';
import { dataModel, specAnswer, specView } from '../../openapi/spec-views.js';
import { internalServiceFragment } from '../../openapi/model-fragment.js';
import { findServiceType } from '../internal-service-types.js';
import type { ServiceResult } from '../../services/service-kind.js';
import { serviceFragment } from './service-fragments.js';
import { coreMessages } from '../../core/messages.js';
import { systemMessages } from '../system-messages.js';

export type DocsService = InternalService & {
  /** GET /{service}/_spec with its options (openapi/spec-views.ts). */
  spec(service: string, query: RawQuery, accept: string | undefined): Promise<ServiceResult>;
};

export function createDocsService(ctx: PlatformContext): DocsService {
  // A service that cannot be opened right now (a database down) is documented without paths.
  const fragmentOf = (service: ServiceModel) => serviceFragment(ctx, service).catch(() => ({ paths: {}, components: {} }));

  /** The service a document is asked of: 404 when there is none, 403 when deactivated. */
  function documentedService(name: string): ServiceModel {
    const service = ctx.services.get(name);
    if (!service) throw coreMessages.serviceNotFound.error(name);
    // A deactivated service serves nothing, its document included, through either path (as its _spec).
    if (!service.is_active) throw coreMessages.serviceDeactivated.error(name);
    return service;
  }

  async function documentOf(service: ServiceModel): Promise<OpenAPIObject> {
    return serviceDocument(service, await fragmentOf(service), findServiceType(service.type)?.group);
  }

  return {
    access: () => ({ exception: false, adminOnly: false }),
    accessComponents: () => ctx.services.list().map((service) => service.name),
    async spec(name, query, accept) {
      const service = documentedService(name);
      // The data model needs no document, and the document no tables unless `tables=true` asks for them.
      if (toBool(pick(query, 'model'))) return specAnswer(await modelOf(ctx, service), query, accept);
      // A database that cannot be opened now is documented without paths, and so without tables.
      const tables = toBool(pick(query, 'tables')) ? await tablesOf(ctx, service).catch(() => undefined) : undefined;
      const view = specView(
        await documentOf(service),
        query,
        tables?.map((table) => table.name),
      );
      return specAnswer(view, query, accept);
    },
    async handle(call) {
      if (call.verb !== 'GET') throw coreMessages.verbNotSupported.error(call.verb, call.resource.join('/'), 'api_docs');
      if (call.resource.length === 1) {
        const name = call.resource[0];
        if (!call.auth.isAdmin && ctx.services.get(name) && !callerMayRead(ctx, call.auth.role?.id ?? null, name)) {
          throw systemMessages.noDocsAccess.error(name);
        }
        const document = await documentOf(documentedService(name));
        // The reference's document names the service type's group in its info, where its admin
        // console reads it (to check the service's health); _spec keeps to OpenAPI's info keys.
        const info = document.info as unknown as Record<string, unknown>;
        if (info['x-service-group'] !== undefined) info.group = info['x-service-group'];
        return { body: document };
      }
      if (call.resource.length > 1) throw coreMessages.resourceNotFound.error(call.resource.join('/'), 'api_docs');
      // Deactivated services are left out, as the reference lists active services only: every path they have answers 403.
      const readable = ctx.services
        .list()
        .filter((service) => service.is_active && (call.auth.isAdmin || callerMayRead(ctx, call.auth.role?.id ?? null, service.name)));
      // `as_list=true`: the names of the documented services alone (reference 8.2).
      if (toBool(pick(call.query, 'as_list'))) return { body: wrapList(readable.map((service) => service.name)) };
      const entries = [];
      for (const service of readable) entries.push({ service, fragment: await fragmentOf(service) });
      return {
        body: combinedDocument(entries, {
          title: ctx.model.platform.title,
          description: ctx.model.platform.description,
          version: API_VERSION,
        }),
      };
    },
  };
}

/**
 * A database's tables as it serves them now; none for the runtime's own services and the other
 * kinds. Throws when the service cannot be opened or read right now (a database down).
 */
export async function tablesOf(ctx: PlatformContext, service: ServiceModel): Promise<readonly TableModel[] | undefined> {
  if (internalServiceFragment(service.type)) return undefined;
  return (await ctx.services.handler(service.name)).tables?.();
}

/**
 * `model=true`: a database's tables and relations. The runtime's own services have none; a service
 * that cannot be opened or read right now (a database down) answers without them, saying so, as
 * its document is then served without paths.
 */
async function modelOf(ctx: PlatformContext, service: ServiceModel): Promise<Record<string, unknown>> {
  let tables: readonly TableModel[] | undefined;
  try {
    tables = await tablesOf(ctx, service);
  } catch {
    return dataModel(service.name, undefined, 'The service cannot be reached right now: its data model is unavailable.');
  }
  return dataModel(service.name, tables);
}

/** Non-administrators see the services their role grants anything on. */
function callerMayRead(ctx: PlatformContext, roleId: number | null, service: string): boolean {
  return roleReaches(roleId === null ? undefined : ctx.directory.roles.get(roleId), service);
}
