/**
 * /system/package: export of the platform's configuration made through the API, and its import
 * into another platform (reference 5.13, as JSON instead of a zip). Records refer to each other
 * by name (a grant names its service, an app its role), so a package imports where ids differ.
 *
 * - GET: the manifest, what can be exported; with `export=true` the whole package.
 * - POST with a manifest: the package of what it names.
 * - POST `?import=true` with a package: creates its records (`overwrite=true` also changes the
 *   ones that exist), through the same validation as every API write, all in one system-database
 *   transaction (a refused record leaves nothing imported); returns the log with 201.
 *
 * A restricted administrator (one whose role decides, reference 6.3) exports and imports only the
 * kinds their role lets them read and write through /system/{kind}: the package is no way around it.
 */
import { BadRequestError, PorticoError } from '../../core/errors.js';
import { pick, toBool } from '../../core/query-params.js';
import type { InternalCall } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { matchGrant } from '../../auth/access.js';
import { maskToVerbs, verbsToMask } from '../../auth/principals.js';
import { coreMessages } from '../../core/messages.js';
import type { Verb } from '../../model/platform-model.js';
import type { ServiceResult } from '../../services/service-kind.js';
import { MASK, maskConfigSecrets, type Row } from '../record-resources/record-presentation.js';
import { inOneTransaction, serveResource, type ResourceBehaviour } from '../record-resources/resource-handler.js';
import { PERIODS } from '../limits/limit-rules.js';
import { RECORD_BEHAVIOURS } from './record-behaviours.js';
import { widerAccess } from '../../auth/grant-width.js';
import type { Grant } from '../../auth/principals.js';
import { normaliseComponent, rowFilterModels } from '../system-directory.js';
import { callerGrants, governingRoles, grantSignature, ownRoleRefusal, widerRefusal } from './role-width-guard.js';

export const PACKAGE_VERSION = 1;

/** Exported kinds in import order (what a record refers to comes first), with the field that names a record. */
const KINDS = [
  ['service', 'name'],
  ['role', 'name'],
  ['app', 'name'],
  ['user', 'email'],
  ['cors', 'path'],
  ['email_template', 'name'],
  ['lookup', 'name'],
  ['custom', 'name'],
  ['scheduler', 'name'],
  // Rate limits name their user (by email), role and service, all imported before them.
  ['limit', 'name'],
] as const;

type Kind = (typeof KINDS)[number][0];
type Manifest = Partial<Record<Kind, string[]>>;

const parseJson = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
const flag = (value: number) => value === 1;

/** Every exportable record of every kind, with references by name. */
async function exportAll(ctx: PlatformContext): Promise<Record<Kind, Row[]>> {
  const db = ctx.db;
  const [services, roles, apps, users, grants, lookups, assignments, cors, templates, customs, tasks, limits] = await Promise.all([
    db.selectFrom('service').selectAll().where('origin', '=', 'api').orderBy('name').execute(),
    db.selectFrom('role').selectAll().where('origin', '=', 'api').orderBy('name').execute(),
    db.selectFrom('app').selectAll().where('origin', '=', 'api').orderBy('name').execute(),
    db.selectFrom('user').selectAll().where('is_sys_admin', '=', 0).orderBy('email').execute(),
    db.selectFrom('role_service_access').selectAll().orderBy('id').execute(),
    db.selectFrom('lookup').selectAll().orderBy('name').orderBy('id').execute(),
    db.selectFrom('user_to_app_to_role').selectAll().orderBy('id').execute(),
    db.selectFrom('cors_config').selectAll().orderBy('path').execute(),
    db.selectFrom('email_template').selectAll().orderBy('name').execute(),
    db.selectFrom('system_custom').selectAll().orderBy('name').execute(),
    db.selectFrom('scheduler_task').selectAll().orderBy('name').execute(),
    // Limits declared in platform.yaml come with the platform, as its services do.
    db.selectFrom('limits').selectAll().where('origin', '=', 'api').orderBy('name').orderBy('id').execute(),
  ]);
  const [allServices, allRoles, allApps, allUsers] = await Promise.all([
    db.selectFrom('service').select(['id', 'name']).execute(),
    db.selectFrom('role').select(['id', 'name']).execute(),
    db.selectFrom('app').select(['id', 'name']).execute(),
    db.selectFrom('user').select(['id', 'email']).execute(),
  ]);
  const nameOf = (list: Array<{ id: number; name: string }>, id: number | null) =>
    id === null ? null : (list.find((x) => x.id === id)?.name ?? null);
  const lookupsOf = (key: 'app_id' | 'role_id' | 'user_id', id: number | null) =>
    lookups
      .filter((l) => (id === null ? l.app_id === null && l.role_id === null && l.user_id === null : l[key] === id))
      .map((l) => ({ name: l.name, value: l.value, private: flag(l.private), description: l.description }));
  return {
    service: services.map((s) => ({
      name: s.name,
      label: s.label,
      type: s.type,
      description: s.description,
      is_active: flag(s.is_active),
      config: parseJson(s.config),
    })),
    role: roles.map((r) => ({
      name: r.name,
      description: r.description,
      is_active: flag(r.is_active),
      grants: grants
        .filter((g) => g.role_id === r.id)
        .map((g) => ({
          service: nameOf(allServices, g.service_id),
          component: g.component,
          verbs: maskToVerbs(g.verb_mask),
          requestor_mask: g.requestor_mask,
          filters: parseJson(g.filters),
          filter_op: g.filter_op,
        })),
      lookups: lookupsOf('role_id', r.id),
    })),
    app: apps.map((a) => ({
      name: a.name,
      label: a.label,
      description: a.description,
      is_active: flag(a.is_active),
      api_key: a.api_key,
      type: a.type,
      path: a.path,
      url: a.url,
      role: nameOf(allRoles, a.role_id),
      lookups: lookupsOf('app_id', a.id),
    })),
    user: users.map((u) => ({
      name: u.name,
      email: u.email,
      first_name: u.first_name,
      last_name: u.last_name,
      username: u.username,
      phone: u.phone,
      is_active: flag(u.is_active),
      roles: assignments
        .filter((x) => x.user_id === u.id)
        .map((x) => ({ app: nameOf(allApps, x.app_id), role: nameOf(allRoles, x.role_id) })),
      lookups: lookupsOf('user_id', u.id),
    })),
    cors: cors.map((c) => ({
      path: c.path,
      description: c.description,
      origin: c.origin,
      header: c.header,
      exposed_header: c.exposed_header,
      method: maskToVerbs(c.method),
      max_age: c.max_age,
      supports_credentials: flag(c.supports_credentials),
      enabled: flag(c.enabled),
    })),
    email_template: templates.map((t) => ({
      name: t.name,
      description: t.description,
      to: parseJson(t.to),
      cc: parseJson(t.cc),
      bcc: parseJson(t.bcc),
      subject: t.subject,
      body_text: t.body_text,
      body_html: t.body_html,
      from_name: t.from_name,
      from_email: t.from_email,
      reply_to_name: t.reply_to_name,
      reply_to_email: t.reply_to_email,
    })),
    lookup: lookupsOf('app_id', null),
    custom: customs.map((c) => ({ name: c.name, value: parseJson(c.value) })),
    // A task names its service; it runs as the administrator who imports it.
    scheduler: tasks.map((t) => ({
      name: t.name,
      description: t.description,
      is_active: flag(t.is_active),
      service: nameOf(allServices, t.service_id),
      component: t.component,
      verb: t.verb,
      frequency: t.frequency,
      payload: t.payload,
    })),
    limit: limits.map((l) => ({
      name: l.name,
      description: l.description,
      is_active: flag(l.is_active),
      type: l.type,
      rate: l.rate,
      period: PERIODS[l.period] ?? l.period,
      user: l.user_id === null ? null : (allUsers.find((u) => u.id === l.user_id)?.email ?? null),
      role: nameOf(allRoles, l.role_id),
      service: nameOf(allServices, l.service_id),
      endpoint: l.endpoint,
      verb: l.verb,
    })),
  };
}

function manifestOf(records: Record<Kind, Row[]>): Manifest {
  return Object.fromEntries(KINDS.map(([kind, key]) => [kind, records[kind].map((r) => String(r[key]))])) as Manifest;
}

/** The manifest a client sent: `{service: {system: {...}}}` (the reference's form) or the bare `{role: [...], ...}`. */
function readManifest(body: unknown): Manifest {
  const object = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  const nested = (object?.service as Record<string, unknown> | undefined)?.system;
  const manifest = (nested ?? object) as Record<string, unknown> | null;
  if (manifest === null || typeof manifest !== 'object')
    throw new BadRequestError('The body must be a manifest: {"service": {"system": {"role": ["name", ...], ...}}}.');
  for (const [kind, names] of Object.entries(manifest)) {
    if (!KINDS.some(([k]) => k === kind)) throw new BadRequestError(`Unknown kind '${kind}' in the manifest.`, { field: kind });
    if (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))
      throw new BadRequestError(`Manifest entry '${kind}' must be a list of names.`, { field: kind });
  }
  return manifest as Manifest;
}

function packageOf(ctx: PlatformContext, records: Record<Kind, Row[]>): Record<string, unknown> {
  return { version: PACKAGE_VERSION, platform: ctx.model.platform.name, manifest: { service: { system: manifestOf(records) } }, records };
}

/** Whether the caller's role allows the verb on a system resource (administrators: always). */
function allows(call: InternalCall, verb: Verb, component: string): boolean {
  return call.auth.grants === null || matchGrant(call.auth.grants, 'system', component, verb) !== null;
}

function assertAllowed(call: InternalCall, verb: Verb, component: string): void {
  if (!allows(call, verb, component)) throw coreMessages.accessForbidden.error(verb, `component '${component}' of service 'system'`);
}

/**
 * Every exportable record of the kinds the caller may read. An administrator's package carries
 * secrets as stored (it moves a platform); a restricted administrator's shows them masked, as the
 * resources they read them from do.
 */
async function exportReadable(ctx: PlatformContext, call: InternalCall): Promise<Record<Kind, Row[]>> {
  const records = await exportAll(ctx);
  for (const [kind] of KINDS) if (!allows(call, 'GET', kind)) records[kind] = [];
  if (call.auth.grants === null) return records;
  for (const service of records.service) service.config = maskConfigSecrets((service.config ?? {}) as Row);
  const maskLookups = (lookups: unknown) => {
    for (const lookup of (lookups ?? []) as Row[]) if (lookup.private === true) lookup.value = MASK;
  };
  maskLookups(records.lookup);
  for (const kind of ['role', 'app', 'user'] as const) for (const record of records[kind]) maskLookups(record.lookups);
  return records;
}

export async function getPackage(ctx: PlatformContext, call: InternalCall): Promise<unknown> {
  const records = await exportReadable(ctx, call);
  return toBool(pick(call.query, 'export')) ? packageOf(ctx, records) : { service: { system: manifestOf(records) } };
}

export async function postPackage(ctx: PlatformContext, call: InternalCall): Promise<ServiceResult> {
  if (toBool(pick(call.query, 'import'))) return { status: 201, body: await importPackage(ctx, call) };
  const manifest = readManifest(call.body);
  for (const [kind, names] of Object.entries(manifest)) if (names.length > 0) assertAllowed(call, 'GET', kind);
  const all = await exportReadable(ctx, call);
  const chosen = Object.fromEntries(
    KINDS.map(([kind, key]) => {
      const names = manifest[kind];
      return [kind, names === undefined ? [] : all[kind].filter((r) => names.includes(String(r[key])))];
    }),
  ) as Record<Kind, Row[]>;
  return { body: packageOf(ctx, chosen) };
}

/** Ids of records by name, read when needed (records imported earlier in the same package count). */
async function idByName(ctx: PlatformContext, table: 'service' | 'role' | 'app', name: unknown, field: string): Promise<number | null> {
  if (name === null || name === undefined) return null;
  const row = await ctx.db.selectFrom(table).select('id').where('name', '=', String(name)).executeTakeFirst();
  if (!row) throw new BadRequestError(`The package refers to no ${table} named '${String(name)}' (${field}).`, { field });
  return row.id;
}

/** The id of the user with an email, read when needed. */
async function userIdByEmail(ctx: PlatformContext, email: unknown, field: string): Promise<number | null> {
  if (email === null || email === undefined) return null;
  const row = await ctx.db.selectFrom('user').select('id').where('email', '=', String(email)).executeTakeFirst();
  if (!row) throw new BadRequestError(`The package refers to no user with email '${String(email)}' (${field}).`, { field });
  return row.id;
}

/** One package record as the body of the resource's API write. */
async function apiRecord(ctx: PlatformContext, kind: Kind, record: Row): Promise<Row> {
  if (kind === 'limit') {
    const { user, role, service, ...rest } = record;
    return {
      ...rest,
      user_id: await userIdByEmail(ctx, user, 'user'),
      role_id: await idByName(ctx, 'role', role, 'role'),
      service_id: await idByName(ctx, 'service', service, 'service'),
    };
  }
  const { lookups, grants, roles, role, service, ...rest } = record as Row & {
    lookups?: Row[];
    grants?: Row[];
    roles?: Row[];
    role?: unknown;
    service?: unknown;
  };
  const out: Row = { ...rest };
  if (kind === 'scheduler') out.service_id = await idByName(ctx, 'service', service, 'service');
  if (kind === 'role') {
    out.role_service_access_by_role_id = await Promise.all(
      (grants ?? []).map(async (g) => {
        const { service, verbs, ...grant } = g;
        return {
          ...grant,
          service_id: await idByName(ctx, 'service', service, 'grants.service'),
          verb_mask: verbsToMask(Array.isArray(verbs) ? (verbs as Verb[]) : []),
        };
      }),
    );
    out.lookup_by_role_id = lookups ?? [];
  }
  if (kind === 'app') {
    out.role_id = await idByName(ctx, 'role', role, 'role');
    out.lookup_by_app_id = lookups ?? [];
  }
  if (kind === 'user') {
    out.user_to_app_to_role_by_user_id = await Promise.all(
      (roles ?? []).map(async (r) => ({
        app_id: await idByName(ctx, 'app', r.app, 'roles.app'),
        role_id: await idByName(ctx, 'role', r.role, 'roles.role'),
      })),
    );
    out.lookup_by_user_id = lookups ?? [];
  }
  return out;
}

/** The relations an overwrite replaces: their current children, marked for deletion. */
const REPLACED: Partial<Record<Kind, Array<[string, string, string]>>> = {
  role: [
    ['role_service_access_by_role_id', 'role_service_access', 'role_id'],
    ['lookup_by_role_id', 'lookup', 'role_id'],
  ],
  app: [['lookup_by_app_id', 'lookup', 'app_id']],
  user: [
    ['user_to_app_to_role_by_user_id', 'user_to_app_to_role', 'user_id'],
    ['lookup_by_user_id', 'lookup', 'user_id'],
  ],
};

async function importPackage(ctx: PlatformContext, call: InternalCall): Promise<{ success: true; log: Row[] }> {
  const body = call.body as { version?: unknown; records?: unknown } | undefined;
  if (!body || typeof body !== 'object' || body.records === null || typeof body.records !== 'object' || Array.isArray(body.records)) {
    throw new BadRequestError('The body must be a package: {"version": 1, "records": {...}} as GET /system/package?export=true returns.', {
      field: 'records',
    });
  }
  if (body.version !== PACKAGE_VERSION)
    throw new BadRequestError(
      `Unsupported package version ${JSON.stringify(body.version)}; this platform reads version ${PACKAGE_VERSION}.`,
      { field: 'version' },
    );
  const records = body.records as Record<string, unknown>;
  for (const kind of Object.keys(records)) {
    if (!KINDS.some(([k]) => k === kind)) throw new BadRequestError(`Unknown kind '${kind}' in the package.`, { field: `records.${kind}` });
    if (!Array.isArray(records[kind]))
      throw new BadRequestError(`Package entry '${kind}' must be a list of records.`, { field: `records.${kind}` });
  }
  const overwrite = toBool(pick(call.query, 'overwrite'));
  // The caller may make every write the package asks for, before any is made.
  for (const [kind, key] of call.auth.grants === null ? [] : KINDS) {
    for (const record of (records[kind] ?? []) as Row[]) {
      const { table, idField } = (RECORD_BEHAVIOURS.get(kind) as ResourceBehaviour).def;
      const existing = (await ctx.db
        .selectFrom(table as 'role')
        .select(idField as 'id')
        .where(key as 'name', '=', String(record?.[key]))
        .executeTakeFirst()) as Row | undefined;
      if (!existing) assertAllowed(call, 'POST', kind);
      else if (overwrite) assertAllowed(call, 'PATCH', `${kind}/${String(existing[idField])}`);
    }
  }
  if (call.auth.grants !== null) await assertGivesNoWider(ctx, call, records, overwrite);
  const log: Row[] = [];
  // One transaction: a package whose fifth record is refused leaves nothing of the first four.
  await inOneTransaction(ctx, (tx) => importRecords(tx, call, records, overwrite, log));
  return { success: true, log };
}

/** Writes the records of a package in order, each through its resource's API write, within the import's transaction. */
async function importRecords(
  ctx: PlatformContext,
  call: InternalCall,
  records: Record<string, unknown>,
  overwrite: boolean,
  log: Row[],
): Promise<void> {
  for (const [kind, key] of KINDS) {
    const behaviour = RECORD_BEHAVIOURS.get(kind) as ResourceBehaviour;
    for (const [index, record] of ((records[kind] ?? []) as Row[]).entries()) {
      const name = String(record?.[key]);
      const internal = (verb: InternalCall['verb'], payload: unknown, id?: string) =>
        serveResource(ctx, behaviour, { ...call, verb, resource: [], query: {}, body: payload }, id);
      try {
        const existing = (await ctx.db
          .selectFrom(behaviour.def.table as 'role')
          .select(behaviour.def.idField as 'id')
          .where(key as 'name', '=', name)
          .executeTakeFirst()) as Row | undefined;
        const payload = await apiRecord(ctx, kind, record);
        if (!existing) {
          await internal('POST', { resource: [payload] });
          log.push({ kind, name, action: 'created' });
        } else if (overwrite) {
          const id = existing[behaviour.def.idField];
          for (const [relation, table, field] of REPLACED[kind] ?? []) {
            const old = await ctx.db
              .selectFrom(table as 'lookup')
              .select('id')
              .where(field as 'role_id', '=', Number(id))
              .execute();
            payload[relation] = [...old.map((o) => ({ id: o.id, [field]: null })), ...(payload[relation] as Row[])];
          }
          await internal('PATCH', payload, String(id));
          log.push({ kind, name, action: 'updated' });
        } else {
          log.push({ kind, name, action: 'skipped', reason: 'exists' });
        }
      } catch (error) {
        if (!(error instanceof PorticoError)) throw error;
        throw new PorticoError(
          error.status,
          `Import of ${kind} '${name}' (records.${kind}[${index}]) failed: ${error.message} Nothing of the package was imported.`,
          { ...((error.context as object) ?? {}), record: `records.${kind}[${index}]` },
        );
      }
    }
  }
}

/** A package role's grants as they will be stored (the API's defaults: component `*`, API requestor, no filters, AND). */
function packagedGrants(grants: unknown): Grant[] {
  return (Array.isArray(grants) ? (grants as Row[]) : []).map((g) => ({
    service: g.service === null || g.service === undefined ? null : String(g.service).toLowerCase(),
    component: normaliseComponent(g.component === undefined ? '*' : (g.component as string | null)),
    verbMask: verbsToMask(Array.isArray(g.verbs) ? (g.verbs as Verb[]) : []),
    requestorMask: typeof g.requestor_mask === 'number' ? g.requestor_mask : 1,
    filters: rowFilterModels(g.filters ?? []),
    filterOp: String(g.filter_op ?? 'and').toLowerCase() === 'or' ? 'or' : 'and',
  }));
}

/**
 * A caller governed by a role imports no role, role assignment or app default role wider than its
 * own, nor changes its own role's grants (role-width-guard.ts, which each record's write checks
 * again): refused before any record is written.
 */
async function assertGivesNoWider(
  ctx: PlatformContext,
  call: InternalCall,
  records: Record<string, unknown>,
  overwrite: boolean,
): Promise<void> {
  const own = callerGrants(ctx, call);
  const governing = await governingRoles(ctx.db, call);
  const existingId = async (table: 'role' | 'app' | 'user', field: 'name' | 'email', name: unknown) =>
    (await ctx.db.selectFrom(table).select('id').where(field, '=', String(name)).executeTakeFirst())?.id;
  /** Roles the package writes, by name: their grants after it, and whether those change. */
  const written = new Map<string, { grants: Grant[]; changed: boolean }>();
  for (const record of (records.role ?? []) as Row[]) {
    const id = await existingId('role', 'name', record?.name);
    if (id !== undefined && !overwrite) continue;
    const grants = packagedGrants(record.grants);
    const changed = grantSignature(grants) !== grantSignature(id === undefined ? [] : (ctx.directory.roles.get(id)?.grants ?? []));
    written.set(String(record.name), { grants, changed });
    if (!changed) continue;
    if (id !== undefined && governing.has(id)) throw ownRoleRefusal(String(record.name), id);
    const wider = widerAccess(grants, own);
    if (wider !== null) throw widerRefusal(String(record.name), id ?? null, wider, 'role');
  }
  /** A role the package assigns: refused when wider than the caller's, unless assigned already and left as it is. */
  const assertAssignable = async (roleName: unknown, already: boolean) => {
    if (roleName === null || roleName === undefined) return;
    const packaged = written.get(String(roleName));
    if (already && packaged?.changed !== true) return;
    const id = await existingId('role', 'name', roleName);
    const grants = packaged?.grants ?? (id === undefined ? [] : (ctx.directory.roles.get(id)?.grants ?? []));
    const wider = widerAccess(grants, own);
    if (wider !== null) throw widerRefusal(String(roleName), id ?? null, wider, 'assignment');
  };
  for (const record of (records.app ?? []) as Row[]) {
    const id = await existingId('app', 'name', record?.name);
    if (id !== undefined && !overwrite) continue;
    const current =
      id === undefined ? undefined : (await ctx.db.selectFrom('app').select('role_id').where('id', '=', id).executeTakeFirst())?.role_id;
    const roleId = record.role === null || record.role === undefined ? null : await existingId('role', 'name', record.role);
    await assertAssignable(record.role, current !== undefined && current !== null && current === roleId);
  }
  for (const record of (records.user ?? []) as Row[]) {
    const id = await existingId('user', 'email', record?.email);
    if (id !== undefined && !overwrite) continue;
    const current =
      id === undefined
        ? []
        : await ctx.db.selectFrom('user_to_app_to_role').select(['app_id', 'role_id']).where('user_id', '=', id).execute();
    for (const assignment of (Array.isArray(record.roles) ? record.roles : []) as Row[]) {
      const appId = await existingId('app', 'name', assignment.app);
      const roleId = await existingId('role', 'name', assignment.role);
      await assertAssignable(
        assignment.role,
        current.some((row) => row.app_id === appId && row.role_id === roleId),
      );
    }
  }
}
