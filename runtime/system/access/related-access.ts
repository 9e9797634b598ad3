/**
 * What a caller governed by a role (a regular user, a restricted administrator, an app's default
 * role) may read of other system resources through one: `related=` embeds another resource's
 * records (a limit's user, an app's role, a role's user assignments) and a filter or order may
 * name their fields (`user_by_user_id.email`). As for a database service's related tables, each
 * such resource needs the role's GET grant of its own, and an administrators-only one an
 * administrator's account; otherwise the request is refused with 403 naming the relation.
 */
import { matchGrant } from '../../auth/access.js';
import type { AuthContext } from '../../auth/auth-context.js';
import { ForbiddenError } from '../../core/errors.js';
import type { CommonParams } from '../../core/query-params.js';
import type { AccessRule } from '../../http/internal-service.js';
import type { Verb } from '../../model/platform-model.js';
import { requestedRelations } from '../record-resources/related-records.js';
import { filterFields } from '../record-resources/resource-handler.js';
import type { RecordDefinition } from '../record-resources/resource-definition.js';

/** The system resource whose grant reads a table's records (child records belong to their parent's resource). */
const RESOURCE_OF_TABLE: Readonly<Record<string, string>> = {
  app: 'app',
  role: 'role',
  role_service_access: 'role',
  service: 'service',
  user: 'user',
  user_to_app_to_role: 'user',
};

/** The relations that field paths (`relation.field`) of filters, order and group name, lower-cased. */
function relationsNamed(params: CommonParams): string[] {
  const paths = [
    ...[...filterFields(params.filter), ...filterFields(params.having)].map((ref) => ref.path.join('.')),
    ...params.order.map((term) => term.field),
    ...(params.group ?? []),
  ];
  return paths.filter((path) => path.includes('.')).map((path) => path.split('.')[0].toLowerCase());
}

/**
 * Refuses a request whose related reads, filters or order reach a resource the caller's role may
 * not GET. `params` are the request's, as the resource handler reads them (query, and a GET's
 * body); `access` is the system service's rule of who may call a resource (administrators-only ones).
 */
export function assertRelatedReadable(
  auth: AuthContext,
  def: RecordDefinition,
  params: CommonParams,
  access: (verb: Verb, resource: readonly string[]) => AccessRule,
): void {
  if (auth.grants === null) return;
  // Names that are no stored relation (computed ones as a limit's counters, unknown ones) are the resource handler's to judge.
  const stored = params.related?.filter((name) => name === '*' || Object.hasOwn(def.relations, name)) ?? null;
  const reached: Array<[string, RecordDefinition]> = requestedRelations(def, stored).map(([name, r]) => [name, r.target]);
  for (const name of relationsNamed(params)) {
    const relation = Object.entries(def.relations).find(([known]) => known.toLowerCase() === name);
    if (relation) reached.push([relation[0], relation[1].target]);
  }
  for (const [name, target] of reached) {
    const resource = RESOURCE_OF_TABLE[target.table];
    // Records of the same table, or children that belong to the record read, need nothing more.
    if (resource === undefined || RESOURCE_OF_TABLE[def.table] === resource) continue;
    const adminAccount = auth.user?.isAdminAccount === true;
    const allowed = (!access('GET', [resource]).adminOnly || adminAccount) && matchGrant(auth.grants, 'system', resource, 'GET') !== null;
    if (!allowed) {
      throw new ForbiddenError(
        `Access Forbidden. GET access to component '${resource}' of service 'system' (through '${name}') is not allowed by this user's role.`,
        { related: name },
      );
    }
  }
}
