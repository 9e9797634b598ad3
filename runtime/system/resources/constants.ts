/** GET /system/constant[/{name}]: the numbers the API uses in records (verb masks, requestor masks, app types). */
import { wrapList } from '../../core/envelope.js';
import { VERB_BITS } from '../../auth/principals.js';
import { systemMessages } from '../system-messages.js';

const CONSTANTS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  app_type: { none: 0, storage_service: 1, url: 2, path: 3, git: 4 },
  requestor: { api: 1, script: 2 },
  verb: VERB_BITS,
};

export function constants(name?: string): unknown {
  if (name === undefined) return wrapList(Object.keys(CONSTANTS).map((key) => ({ name: key })));
  const group = CONSTANTS[name];
  if (!group) throw systemMessages.constantNotFound.error(name);
  return { ...group };
}
