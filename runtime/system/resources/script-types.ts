/**
 * GET /system/script_type[/{name}]: the kinds of script the platform runs, as the reference lists
 * its script engines (`name, label, description, sandboxed, supports_inline_execution`). Portico
 * runs one kind: the hook modules of platform.yaml (`hooks`), TypeScript or JavaScript compiled
 * with the server and run in its own Node.js process. That is the `type` of every record of
 * /system/event_script, so a client looking a script's type up here finds it. There is no
 * sandbox and no inline script: a hook changes with the platform's code, not through the API.
 */
import { wrapList } from '../../core/envelope.js';
import { pick, toBool, toList, type RawQuery } from '../../core/query-params.js';
import { systemMessages } from '../system-messages.js';

export interface ScriptType {
  name: string;
  label: string;
  description: string;
  /** Whether scripts run isolated from the platform's process. */
  sandboxed: boolean;
  /** Whether a script's text may be given and run through the API. */
  supports_inline_execution: boolean;
}

export const SCRIPT_TYPES: readonly ScriptType[] = [
  {
    name: 'typescript',
    label: 'TypeScript (Node.js)',
    description:
      "Hook modules declared in platform.yaml (hooks), TypeScript or JavaScript compiled with the server by `gen build` and run in the server's Node.js process on the events they name.",
    sandboxed: false,
    supports_inline_execution: false,
  },
];

function select(record: ScriptType, fields: string[] | null): Record<string, unknown> {
  if (fields === null || fields.includes('*')) return { ...record };
  return Object.fromEntries(fields.filter((f) => f in record).map((f) => [f, record[f as keyof ScriptType]]));
}

export function scriptTypes(query: RawQuery, name?: string): unknown {
  const fields = toList(pick(query, 'fields'));
  if (name !== undefined) {
    const type = SCRIPT_TYPES.find((candidate) => candidate.name === name.toLowerCase());
    if (!type) throw systemMessages.scriptTypeNotFound.error(name);
    return select(type, fields);
  }
  if (toBool(pick(query, 'as_list'))) return wrapList(SCRIPT_TYPES.map((type) => type.name));
  const records = SCRIPT_TYPES.map((type) => select(type, fields));
  return toBool(pick(query, 'include_count')) ? wrapList(records, { count: records.length }) : wrapList(records);
}
