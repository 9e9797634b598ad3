/** GET /api/v2: the services the caller may reach, and the service types. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decideAccess, resolveRole, roleReaches } from '../auth/access.js';
import { readBasicCredentials, readCredentials } from '../auth/credentials.js';
import { pick, toList, type RawQuery } from '../core/query-params.js';
import { listServiceTypes } from '../system/internal-service-types.js';
import { coreMessages } from '../core/messages.js';
import { askedVerb } from './api-dispatch.js';
import { answerHeadersOnly, answerWithBody, sendHeadersOnly } from './head-override.js';
import { identify } from './identify.js';
import type { PlatformContext } from './platform-context.js';

const SERVICE_FIELDS = ['id', 'name', 'label', 'description', 'type'] as const;
/** The methods /api/v2 takes, as OPTIONS names them. */
const ROOT_METHODS = 'GET, HEAD, POST, OPTIONS';

/**
 * A POST's tunnelled verb, read as under /api/v2/{service}: HEAD answers headers only (it sent the
 * listing), a verb the root does not take is a 405 naming the ones it does (it listed anyway).
 */
function headersOnlyAsked(request: FastifyRequest): boolean {
  if (request.method !== 'POST') return false;
  const asked = askedVerb(request.method, request.headers, request.query as RawQuery, request.body);
  if (asked === 'HEAD') {
    // Marked for the error handler, should the listing be refused.
    answerHeadersOnly(request);
    return true;
  }
  // Marked from its headers before its body was read: the body's `_method` asked another verb.
  answerWithBody(request);
  if (asked !== 'GET' && asked !== 'POST') {
    const error = coreMessages.invalidVerb.error(asked);
    error.headers = { ...error.headers, allow: ROOT_METHODS };
    throw error;
  }
  return false;
}

export async function rootListing(ctx: PlatformContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const headersOnly = headersOnlyAsked(request);
  const query = request.query as RawQuery;
  const caller = await identify(ctx, readCredentials(request.headers, query), readBasicCredentials(request.headers));
  const role = resolveRole(caller.user, caller.app, ctx.directory.roles);
  // The listing itself is open (reference 1.1); credentials, when sent, must be valid.
  const decision = decideAccess({
    verb: 'GET',
    service: '',
    component: '',
    apiKeyGiven: caller.apiKeyGiven,
    app: caller.app,
    tokenError: caller.tokenError,
    user: caller.user,
    role,
    exception: true,
    adminOnly: false,
  });
  if (!decision.allowed) throw decision.error;
  if (caller.tokenError) throw caller.tokenError;
  const isAdmin = caller.user?.isSysAdmin === true;
  // Groups as /system/service_type takes them: a comma list, any case (the reference's legacy
  // admin app asks for `group=source control,file`).
  const groups = toList(pick(query, 'group'))?.map((g) => g.toLowerCase()) ?? null;
  // Types likewise (a comma list): both lists hold only those types, as with a group. A group wins over
  // them, as in the reference (RestController: `type=` is read only without `group=`).
  const types = groups === null ? (toList(pick(query, 'type'))?.map((t) => t.toLowerCase()) ?? null) : null;
  const kinds = listServiceTypes().filter(
    (k) => (groups === null || groups.includes(k.group.toLowerCase())) && (types === null || types.includes(k.type)),
  );
  const fields = (toList(typeof query.fields === 'string' ? query.fields : undefined) ?? [...SERVICE_FIELDS]).filter((f) =>
    (SERVICE_FIELDS as readonly string[]).includes(f),
  );
  // Active services only (reference 1.1): a deactivated one answers 403 to everyone, its spec_url included.
  const services = ctx.services
    .list()
    .filter((s) => s.is_active && kinds.some((k) => k.type === s.type))
    .filter((s) => isAdmin || roleReaches(role, s.name))
    .map((s) => {
      const all: Record<string, unknown> = { id: s.id, name: s.name, label: s.label, description: s.description, type: s.type };
      const entry: Record<string, unknown> = {};
      for (const field of fields) entry[field] = all[field];
      entry.spec_url = `/api/v2/${s.name}/_spec`;
      return entry;
    });
  const listing = {
    services,
    service_types: kinds.map((k) => ({ name: k.type, label: k.label, group: k.group, description: k.description })),
  };
  return headersOnly ? sendHeadersOnly(reply, listing) : listing;
}
