/**
 * What each model-backed system resource adds to the generic CRUD (record-resources/resource-handler.ts):
 * administrators and users (scope, password hashing, no self-deletion or self-deactivation, an active
 * administrator always left), apps (API keys), roles,
 * services (type and config checks, live serving), CORS rules, global lookups, email templates
 * and custom settings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SqliteAdapter, sql } from 'kysely';
import { generateApiKey, hashPassword } from '../../auth/passwords.js';
import { BadRequestError, ConflictError, PorticoError } from '../../core/errors.js';
import { pick, toBool } from '../../core/query-params.js';
import type { PlatformContext } from '../../http/platform-context.js';
import type { ServiceModel } from '../../model/platform-model.js';
import { rowFiltersToNode } from '../../services/sql/filter/row-filters.js';
import { findServiceType } from '../internal-service-types.js';
import { rowFilterModels } from '../system-directory.js';
import { limitBehaviour } from '../limits/limit-resource.js';
import { assertValid } from '../record-resources/json-validator.js';
import type { SystemDb } from '../store/system-db.js';
import { keepMaskedSecrets, type Row } from '../record-resources/record-presentation.js';
import { assertLookupNameFree } from '../record-resources/related-records.js';
import {
  type Key,
  type Prepared,
  removeCommitted,
  type ResourceBehaviour,
  type WriteContext,
} from '../record-resources/resource-handler.js';
import {
  adminResource,
  appResource,
  corsResource,
  customResource,
  emailTemplateResource,
  lookupResource,
  roleResource,
  serviceResource,
  userResource,
} from '../record-resources/system-records.js';
import { assertPasswordAllowed, passwordSecrets, sessionCutoff } from './password-rules.js';
import { accessibleTabs, applyRestriction, requestedRestriction } from './restricted-admins.js';
import { assertAdminWriteAllowed, assertDeleteKeepsRestrictions, assertStillRestricted, roleGoverned } from './restriction-guard.js';
import { assertGrantedAccess, assertRegistrationRoles, noteGrantedAccess } from './role-width-guard.js';
import { liveServiceModel } from './service-models.js';
import { reportServiceChange, serviceReportBehaviour } from './service-reports.js';
import { schedulerBehaviour } from '../scheduler/scheduler-resource.js';
import { systemMessages } from '../system-messages.js';
import { mailCode } from '../self-service.js';
import { mailOrUndo } from '../system-mail.js';
import { userServiceConfig } from '../user/user-config.js';
import { syncServicesInTurn } from '../shared/reload-platform.js';

const reloadDirectory = async (w: WriteContext) => w.ctx.directory.reload();

/** Created through the API, flags default to true (DESIGN 5.6). */
function activeByDefault(prepared: Prepared, mode: 'create' | 'update'): void {
  if (mode === 'create' && prepared.columns.is_active === undefined) prepared.columns.is_active = 1;
}

/** Accounts read per query for their confirmation state (well under every driver's bound-parameter limit). */
const CONFIRMATION_BATCH = 500;

/**
 * The reference's appended `confirmed` and `expired` (reference 5.2): an account waiting on a code
 * (an invitation, a reset, a registration to confirm) is not confirmed, and its code has expired
 * once past its expiry. The admin console shows each account as confirmed or pending from it,
 * and offers to send an invitation to a pending one.
 */
async function addConfirmation(ctx: PlatformContext, db: SystemDb, records: Row[], fields: readonly string[] | null): Promise<void> {
  // `fields=` names what a caller wants back (and cannot name these two): they come with all fields only.
  if (fields !== null) return;
  const ids = records.map((record) => record.id).filter((id): id is number => typeof id === 'number');
  const codes = new Map<number, { confirm_code: string | null; confirm_code_expiry: number | null }>();
  for (let start = 0; start < ids.length; start += CONFIRMATION_BATCH) {
    const rows = await db
      .selectFrom('user')
      .select(['id', 'confirm_code', 'confirm_code_expiry'])
      .where('id', 'in', ids.slice(start, start + CONFIRMATION_BATCH))
      .execute();
    for (const row of rows) codes.set(Number(row.id), row);
  }
  for (const record of records) {
    const code = codes.get(record.id as number);
    if (code === undefined) continue;
    const pending = code.confirm_code !== null && code.confirm_code !== 'y';
    record.confirmed = !pending;
    record.expired = pending && Number(code.confirm_code_expiry ?? 0) * 1000 <= ctx.clock.now();
  }
}

/** The accounts a write leaves without access: every one a delete names, those an update sets inactive. */
function leavingAccounts(verb: 'update' | 'delete', keys: readonly Key[], prepared: readonly Prepared[]): number[] {
  const leaving = verb === 'delete' ? keys : keys.filter((_key, index) => [0, false].includes(prepared[index]?.columns.is_active as never));
  return leaving.map(Number);
}

/**
 * No caller deletes or deactivates their own account, and no write (a batch, ids= or filter=
 * included) deletes or deactivates the last active administrator: nobody could log in to the
 * system API again. The active administrators are read with a lock on PostgreSQL and
 * MySQL/MariaDB (SQLite writes one transaction at a time), so two writes at once that each leave
 * one administrator cannot together leave none.
 */
async function assertAccountsRemain(
  w: WriteContext,
  admin: boolean,
  verb: 'update' | 'delete',
  keys: readonly Key[],
  prepared: readonly Prepared[],
): Promise<void> {
  const leaving = leavingAccounts(verb, keys, prepared);
  if (leaving.length === 0) return;
  const self = w.call.auth.user?.id;
  if (self !== undefined && leaving.includes(self))
    throw verb === 'delete' ? systemMessages.cannotDeleteSelf.error() : systemMessages.cannotDeactivateSelf.error();
  if (!admin) return;
  let query = w.db.selectFrom('user').select('id').where('is_sys_admin', '=', 1).where('is_active', '=', 1);
  if (!(w.db.getExecutor().adapter instanceof SqliteAdapter)) query = query.forUpdate();
  const active = (await query.execute()).map((row) => Number(row.id));
  if (active.length > 0 && active.every((id) => leaving.includes(id)))
    throw systemMessages.lastActiveAdmin.error(verb === 'delete' ? 'delete' : 'deactivate');
}

function personBehaviour(admin: boolean): ResourceBehaviour {
  const behaviour: ResourceBehaviour = {
    def: admin ? adminResource : userResource,
    scope: [{ name: 'is_sys_admin', operator: '=', value: admin ? '1' : '0' }],
    afterRead: (ctx, db, records, _query, fields) => addConfirmation(ctx, db, records, fields),
    async prepare(prepared, record, mode, ctx) {
      activeByDefault(prepared, mode);
      if (mode === 'create') prepared.columns.is_sys_admin = admin ? 1 : 0;
      if (typeof record.password === 'string') {
        assertPasswordAllowed(ctx, record.password, 'password');
        // A new account has no sessions to end.
        if (mode === 'create') prepared.secrets.password = await hashPassword(record.password);
        else Object.assign(prepared.secrets, await passwordSecrets(ctx, record.password));
      }
      // Deactivating ends the account's sessions for good: reactivating does not bring them back.
      if (mode === 'update' && (record.is_active === false || record.is_active === 0))
        prepared.secrets.tokens_valid_after = sessionCutoff(ctx);
      if (admin) prepared.notes = { restriction: requestedRestriction(record) };
    },
    async check(w, verb, keys, prepared) {
      // A caller a role governs cannot make an administrator unrestricted (restriction-guard.ts).
      if (admin && verb !== 'create' && roleGoverned(w.call)) await assertAdminWriteAllowed(w, keys, prepared);
      // Nor give anyone a role wider than its own (role-width-guard.ts).
      if (verb !== 'delete' && roleGoverned(w.call)) await noteGrantedAccess(w, 'person', keys, prepared);
      // `send_invite=true` on an update invites again (reference 5.2), an account still waiting on its code only.
      if (verb === 'update' && toBool(pick(w.call.query, 'send_invite'))) {
        for (const key of keys) {
          const row = await w.db.selectFrom('user').select('confirm_code').where('id', '=', Number(key)).executeTakeFirst();
          if (row && (row.confirm_code === null || row.confirm_code === 'y')) throw systemMessages.alreadyConfirmed.error();
        }
      }
      if (verb !== 'create') await assertAccountsRemain(w, admin, verb, keys, prepared);
      // A restricted administrator's own role goes with them.
      if (verb === 'delete' && admin) for (const key of keys) await applyRestriction(w, Number(key), false);
    },
    async written(w, verb, key, prepared) {
      const restriction = prepared.notes?.restriction as string[] | false | null | undefined;
      if (restriction !== null && restriction !== undefined) await applyRestriction(w, Number(key), restriction);
      if (admin && roleGoverned(w.call)) await assertStillRestricted(w, verb, key);
      if (roleGoverned(w.call)) await assertGrantedAccess(w, 'person', key, prepared);
    },
    async committed(w, verb, keys) {
      await reloadDirectory(w);
      // `send_invite=true` on a create mails each new account a code that sets its password; on an
      // update, a new code to each account the check above found waiting on one.
      if (verb !== 'delete' && toBool(pick(w.call.query, 'send_invite'))) {
        const config = userServiceConfig(w.ctx);
        const choice = { serviceId: config.inviteEmailServiceId, templateId: config.inviteEmailTemplateId };
        await mailOrUndo(
          async () => {
            for (const key of keys) await mailCode(w.ctx, admin ? 'admin' : 'user', Number(key), 'User Invite Default', choice);
          },
          // A create whose invitations cannot go out answers an error: its accounts are deleted again
          // (reference 5.2), all of them, as a failed system write stores nothing. An update's codes
          // are put back by mailCode.
          () => (verb === 'create' ? removeCommitted(w.ctx, behaviour, w.call, keys) : Promise.resolve()),
        );
      }
    },
  };
  return behaviour;
}

export const adminBehaviour = personBehaviour(true);
export const userBehaviour = personBehaviour(false);

/** Apps built in or declared in platform.yaml: everything but the name (their key above all). */
const APP_EDITABLE = Object.keys(appResource.fields).filter((name) => name !== 'name');

export const appBehaviour: ResourceBehaviour = {
  def: appResource,
  originEditable: () => APP_EDITABLE,
  normalise(record) {
    // A form's blank key is no key: generated on create (reference 5.3), kept on update.
    if (record.api_key === null || record.api_key === '') delete record.api_key;
  },
  prepare(prepared, _record, mode, _ctx, call) {
    activeByDefault(prepared, mode);
    if (mode === 'create') prepared.columns.api_key ??= generateApiKey();
    // PATCH /system/app/{id}?regenerate=true gives the app a new key.
    if (mode === 'update' && toBool(pick(call.query, 'regenerate'))) prepared.columns.api_key = generateApiKey();
  },
  async check(w, verb, keys, prepared) {
    // Its role assignments go with a deleted app: no administrator left unrestricted by a caller a role governs.
    if (verb === 'delete' && roleGoverned(w.call)) await assertDeleteKeepsRestrictions(w, 'app_id', keys);
    // Nor make an app's default role one wider than its own (role-width-guard.ts).
    if (verb !== 'delete' && roleGoverned(w.call)) await noteGrantedAccess(w, 'app', keys, prepared);
    // A deleted app is no user's default app any more (the reference's foreign key sets it null): a user read and
    // saved back whole would otherwise be refused for naming an app that does not exist.
    if (verb === 'delete' && keys.length > 0)
      await w.db.updateTable('user').set({ default_app_id: null }).where('default_app_id', 'in', keys.map(Number)).execute();
  },
  async written(w, _verb, key, prepared) {
    if (roleGoverned(w.call)) await assertGrantedAccess(w, 'app', key, prepared);
  },
  committed: reloadDirectory,
};

/**
 * Row filters a grant could never apply (an unknown operator, null compared with `>`, a broken
 * list) are a 400 naming the filter when the role is saved, not a 500 on every request it decides.
 */
function assertRowFilters(grants: readonly Row[] | undefined, relation: string): void {
  for (const [index, grant] of (grants ?? []).entries()) {
    for (const [position, filter] of rowFilterModels(grant.filters).entries()) {
      const field = `${relation}[${index}].filters[${position}]`;
      try {
        rowFiltersToNode([filter], 'and', () => undefined);
      } catch (error) {
        if (!(error instanceof PorticoError)) throw error;
        const reason = (error.context as { reason?: string } | null)?.reason ?? error.message;
        throw new BadRequestError(`Invalid row filter in '${field}': ${reason}.`, { field });
      }
    }
  }
}

export const roleBehaviour: ResourceBehaviour = {
  def: roleResource,
  // Declared roles are the reviewed access policy of platform.yaml: read-only.
  originEditable: () => [],
  prepare(prepared, _record, mode) {
    activeByDefault(prepared, mode);
    assertRowFilters(prepared.nested.role_service_access_by_role_id, 'role_service_access_by_role_id');
  },
  async check(w, verb, keys, prepared) {
    if (!roleGoverned(w.call)) return;
    // Its role assignments go with a deleted role: no administrator left unrestricted by a caller a role governs.
    if (verb === 'delete') await assertDeleteKeepsRestrictions(w, 'role_id', keys);
    // Nor may it widen a role beyond its own, or change its own role's grants (role-width-guard.ts).
    else await noteGrantedAccess(w, 'role', keys, prepared);
  },
  async written(w, _verb, key, prepared) {
    if (roleGoverned(w.call)) await assertGrantedAccess(w, 'role', key, prepared);
  },
  // `accessible_tabs=true`: the admin console's tabs the role grants (restricted administrators).
  async afterRead(_ctx, db, records, query) {
    if (!toBool(pick(query, 'accessible_tabs'))) return;
    for (const record of records) if (typeof record.id === 'number') record.accessible_tabs = await accessibleTabs(db, record.id);
  },
  committed: reloadDirectory,
};

/** Ids of services created through the API start here, clear of those platform.yaml assigns (8, 9, ...). */
const FIRST_API_SERVICE_ID = 1000;

interface ServiceChange {
  model?: ServiceModel;
  previousName?: string;
}

type ServiceRowValues = { id: number; name: string; type: string; config: string };

/**
 * Config keys sent as null that the type does not take null for, or as "" when optional, mean
 * "not set" (a form sends every field of the type, blank ones as null or ""): dropped, so
 * defaults apply.
 */
function dropUnsetKeys(schema: Record<string, unknown>, config: Record<string, unknown>): void {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  for (const [key, value] of Object.entries(config)) {
    const type = properties[key]?.type;
    const takesNull = type === 'null' || (Array.isArray(type) && type.includes('null'));
    if ((value === null && !takesNull) || (value === '' && !required.includes(key))) delete config[key];
  }
}

/** Checks the type against the registry and the config against the type's schema (filling its defaults). */
function checkServiceType(prepared: Prepared, existing: ServiceRowValues | undefined): void {
  const type = (prepared.columns.type ?? existing?.type) as string;
  const kind = findServiceType(type);
  if (!kind) throw new BadRequestError(systemMessages.serviceTypeNotFound.text(type), { field: 'type' });
  // A type whose code is compiled with the server (custom endpoints) cannot be added while it runs.
  if (kind.declaredOnly && prepared.columns.type !== undefined && prepared.columns.type !== existing?.type) {
    throw systemMessages.serviceTypeDeclaredOnly.error(type);
  }
  if (kind.group === 'System' || kind.type === 'user' || kind.type === 'swagger') {
    if (prepared.columns.type !== undefined && prepared.columns.type !== existing?.type) {
      throw new BadRequestError(`Service type '${type}' is built in: a platform has one service of it.`, { field: 'type' });
    }
  }
  if (prepared.columns.config === undefined && prepared.columns.type === undefined) return;
  const stored = existing ? (JSON.parse(existing.config) as Record<string, unknown>) : {};
  const given =
    prepared.columns.config !== undefined && prepared.columns.config !== null
      ? (JSON.parse(prepared.columns.config as string) as Record<string, unknown>)
      : null;
  // A config sent for the same type changes the keys it names and keeps the others (the reference
  // updates the stored config, PATCH and PUT alike); a new type starts from what was sent.
  const sameType = existing !== undefined && (prepared.columns.type === undefined || prepared.columns.type === existing.type);
  const merged = given === null ? stored : sameType ? { ...stored, ...given } : given;
  const config = keepMaskedSecrets(merged, stored);
  dropUnsetKeys(kind.configSchema, config);
  assertValid(kind.configSchema, config, 'config', `configuration of a ${type} service`);
  kind.checkApiConfig?.(config);
  prepared.columns.config = JSON.stringify(config);
}

const realPath = (file: string): string => {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
};

/**
 * A SQLite service on the system database's own file would hand its tables (password hashes, the
 * signing secret, every role assignment) to whoever may call that service: refused.
 */
async function assertNotSystemDatabase(w: WriteContext, prepared: Prepared, existing: ServiceRowValues | undefined): Promise<void> {
  const type = (prepared.columns.type ?? existing?.type) as string;
  if (type !== 'sqlite' || typeof prepared.columns.config !== 'string') return;
  if (!(w.db.getExecutor().adapter instanceof SqliteAdapter)) return;
  const database = w.ctx.runtime.resolveEnv((JSON.parse(prepared.columns.config) as Record<string, unknown>).database);
  if (typeof database !== 'string' || database === ':memory:' || database === '') return;
  const { rows } = await sql<{ name: string; file: string }>`PRAGMA database_list`.execute(w.db);
  const systemFile = rows.find((row) => row.name === 'main')?.file;
  if (systemFile && realPath(path.resolve(w.ctx.runtime.baseDir, database)) === realPath(systemFile)) {
    throw new BadRequestError("Field 'config.database' names the system database, which no service may serve.", {
      field: 'config.database',
    });
  }
}

export const serviceBehaviour: ResourceBehaviour = {
  def: serviceResource,
  // Reads only: a write by name is the reference's 404.
  readByName: 'name',
  // Ids past the last one: two services created at once may choose the same, and the later runs again.
  choosesKeys: true,
  // Built-in and declared services are compiled into the generated server (schema, routes,
  // documents): read-only, except the `user` service's config (registration settings).
  originEditable: (origin, row) => (origin === 'builtin' && row.type === 'user' ? ['config'] : []),
  normalise(record, mode) {
    // The label defaults to the name (reference 5.4); forms send "" for it.
    if (
      mode === 'create' &&
      (record.label === undefined || record.label === '' || record.label === null) &&
      typeof record.name === 'string'
    )
      record.label = record.name;
  },
  prepare(prepared, _record, mode) {
    activeByDefault(prepared, mode);
  },
  async check(w, verb, keys, prepared) {
    const changes = new Map<Key, ServiceChange>();
    w.state.set('services', changes);
    if (verb === 'create') {
      const { max } = await w.db
        .selectFrom('service')
        .select((eb) => eb.fn.max('id').as('max'))
        .executeTakeFirstOrThrow();
      let next = Math.max(Number(max ?? 0) + 1, FIRST_API_SERVICE_ID);
      for (const p of prepared) {
        checkServiceType(p, undefined);
        await assertNotSystemDatabase(w, p, undefined);
        p.columns.id = next++;
      }
      return;
    }
    const rows =
      keys.length === 0
        ? []
        : await w.db.selectFrom('service').select(['id', 'name', 'type', 'config']).where('id', 'in', keys.map(Number)).execute();
    for (const [index, key] of keys.entries()) {
      const existing = rows.find((row) => row.id === Number(key));
      changes.set(key, { previousName: existing?.name });
      if (verb === 'update') {
        checkServiceType(prepared[index], existing);
        await assertNotSystemDatabase(w, prepared[index], existing);
        // Self-registered users get the user service's roles: a caller a role governs gives them none wider than its own.
        const config = prepared[index].columns.config;
        if (existing?.type === 'user' && typeof config === 'string' && roleGoverned(w.call))
          await assertRegistrationRoles(w, existing.config, config);
      }
      // Deleted in this transaction right after: the report goes (or stays) with the delete.
      if (verb === 'delete' && existing) await reportServiceChange(w, 'delete', existing);
    }
  },
  async written(w, verb, key) {
    const row = await w.db.selectFrom('service').selectAll().where('id', '=', Number(key)).executeTakeFirstOrThrow();
    const changes = w.state.get('services') as Map<Key, ServiceChange>;
    changes.set(key, { ...changes.get(key), model: await liveServiceModel(row, w.ctx.runtime) });
    await reportServiceChange(w, verb, row);
  },
  async committed(w, verb) {
    const changes = w.state.get('services') as Map<Key, ServiceChange>;
    for (const change of changes.values()) {
      if (verb === 'delete') {
        if (change.previousName) await w.ctx.services.remove(change.previousName);
      } else if (change.model) await w.ctx.services.put(change.model, change.previousName ?? change.model.name);
    }
    await syncServicesInTurn(w.ctx);
    await w.ctx.directory.reload();
  },
};

export const corsBehaviour: ResourceBehaviour = {
  def: corsResource,
  async committed(w) {
    await w.ctx.cors.reload();
  },
};

export const lookupBehaviour: ResourceBehaviour = {
  def: lookupResource,
  scope: ['app_id', 'role_id', 'user_id'].map((name) => ({ name, operator: 'is null', value: '' })),
  // System lookups take effect for the next request on this instance too (not only after the change feed's poll).
  committed: reloadDirectory,
  async check(w, verb, keys, prepared) {
    const names = new Set<unknown>();
    for (const [index, p] of prepared.entries()) {
      if (p.columns.name === undefined) continue;
      if (names.has(p.columns.name)) throw new ConflictError(`Lookup name '${String(p.columns.name)}' is given twice.`, { field: 'name' });
      names.add(p.columns.name);
      await assertLookupNameFree(w.db, { name: p.columns.name }, verb === 'update' ? keys[index] : undefined, 'name');
    }
  },
};

export const emailTemplateBehaviour: ResourceBehaviour = {
  def: emailTemplateResource,
  normalise(record) {
    // No addresses: the Terraform provider sends null for an empty list.
    for (const name of ['to', 'cc', 'bcc']) if (record[name] === null) record[name] = [];
  },
};

export const customBehaviour: ResourceBehaviour = { def: customResource };

/** The behaviours by resource name. */
export const RECORD_BEHAVIOURS: ReadonlyMap<string, ResourceBehaviour> = new Map(
  [
    adminBehaviour,
    appBehaviour,
    corsBehaviour,
    customBehaviour,
    emailTemplateBehaviour,
    limitBehaviour,
    lookupBehaviour,
    roleBehaviour,
    schedulerBehaviour,
    serviceBehaviour,
    serviceReportBehaviour,
    userBehaviour,
  ].map((b) => [b.def.name, b]),
);
