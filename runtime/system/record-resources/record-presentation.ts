/**
 * System records as clients see them, and as the system database stores them: flags as JSON
 * booleans, JSON columns decoded, hidden and secret columns dropped, private lookup values,
 * service config secrets and CORS method masks shown the reference platform's way.
 */
import { maskToVerbs, verbsToMask } from '../../auth/principals.js';
import type { Verb } from '../../model/platform-model.js';
import { PERIODS } from '../limits/limit-rules.js';
import type { RecordDefinition } from './resource-definition.js';

export type Row = Record<string, unknown>;

/** What a private lookup value reads as; sending it back leaves the stored value unchanged. */
export const MASK = '**********';

/** Service config keys holding secrets (passwords, passphrases, private keys), at any depth of its objects. */
const SECRET_CONFIG_KEY = /password|passphrase|secret|private_key/i;

const isObject = (value: unknown): value is Row => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A service config as read: each secret that is set shows as the mask (reference 5.1). */
export function maskConfigSecrets(config: Row): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(config)) {
    if (SECRET_CONFIG_KEY.test(key) && typeof value === 'string' && value !== '') out[key] = MASK;
    else out[key] = isObject(value) ? maskConfigSecrets(value) : value;
  }
  return out;
}

/** A service config as written: a secret sent back as the mask keeps the stored value (dropped when none is stored). */
export function keepMaskedSecrets(config: Row, stored: Row): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === MASK && SECRET_CONFIG_KEY.test(key)) {
      if (stored[key] !== undefined) out[key] = stored[key];
    } else out[key] = isObject(value) ? keepMaskedSecrets(value, isObject(stored[key]) ? stored[key] : {}) : value;
  }
  return out;
}

/** Columns only the system layer reads: never shown, whatever the resource. */
const SECRET_COLUMNS = new Set(['password', 'confirm_code', 'confirm_code_expiry', 'tokens_valid_after']);

const FLAG_TYPES = ['boolean', 'integer'];

function isFlag(def: RecordDefinition, name: string): boolean {
  const type = def.fields[name]?.schema.type;
  return Array.isArray(type) && type.length === FLAG_TYPES.length && FLAG_TYPES.every((t) => type.includes(t));
}

function decodeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** One stored row (from the records engine or read directly) as the API shows it. */
export function presentRecord(def: RecordDefinition, row: Row): Row {
  const out: Row = {};
  for (const [name, value] of Object.entries(row)) {
    if (SECRET_COLUMNS.has(name) || def.hidden.includes(name) || def.fields[name]?.writeOnly) continue;
    if (def.fields[name]?.json) out[name] = decodeJson(value);
    else if (typeof value === 'number' && isFlag(def, name)) out[name] = value !== 0;
    else out[name] = value;
  }
  if (def.table === 'lookup' && out.private === true && 'value' in out) out.value = MASK;
  if (def.table === 'service' && isObject(out.config)) out.config = maskConfigSecrets(out.config);
  if (def.table === 'cors_config' && typeof out.method === 'number') out.method = maskToVerbs(out.method);
  if (def.table === 'limits' && typeof out.period === 'number') out.period = PERIODS[out.period] ?? out.period;
  if (def.table === 'app' && 'type' in out) out.launch_url = out.type === 2 && typeof out.url === 'string' ? out.url : '';
  return out;
}

/**
 * The column values of a validated input record: only the definition's own fields (read-only,
 * ignored and relation fields dropped), JSON encoded, flags as 0/1, CORS methods as a mask,
 * lookup values as text (the mask sent back keeps the stored value). Write-only fields are the
 * caller's to handle.
 */
export function storedColumns(def: RecordDefinition, record: Row): Row {
  const columns: Row = {};
  for (const [name, rule] of Object.entries(def.fields)) {
    if (!Object.hasOwn(record, name) || rule.writeOnly) continue;
    let value = record[name];
    if (rule.json) value = value === undefined ? null : JSON.stringify(value);
    else if (typeof value === 'boolean' && isFlag(def, name)) value = value ? 1 : 0;
    columns[name] = value;
  }
  if (def.table === 'cors_config' && Array.isArray(columns.method)) columns.method = verbsToMask(columns.method as Verb[]);
  if (def.table === 'lookup' && columns.value === MASK) delete columns.value;
  if (def.table === 'lookup' && columns.value !== undefined && columns.value !== null) columns.value = String(columns.value);
  if (def.table === 'role_service_access' && columns.component === null) columns.component = '';
  if (def.table === 'email_template') {
    for (const name of ['to', 'cc', 'bcc']) {
      const raw = record[name];
      if (typeof raw === 'string')
        columns[name] = JSON.stringify(
          raw
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
        );
    }
  }
  return columns;
}
