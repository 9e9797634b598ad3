/**
 * `/system/scheduler` (the reference's df-scheduler): scheduled tasks. A task is a call of `verb`
 * on `component` of a service with `payload` as its body, made every `frequency` minutes by
 * scheduler-runner.ts. The verb is kept both as its name and as the reference's `verb_mask`: a
 * client may send either. Each task's next run is kept in the system database (where every
 * instance sees it): a new task first runs `frequency` minutes after it is saved, and a change of
 * its frequency or its activation starts its period again.
 */
import { VERB_BITS } from '../../auth/principals.js';
import { BadRequestError } from '../../core/errors.js';
import type { Verb } from '../../model/platform-model.js';
import type { Row } from '../record-resources/record-presentation.js';
import type { Key, Prepared, ResourceBehaviour, WriteContext } from '../record-resources/resource-handler.js';
import { schedulerResource } from '../record-resources/system-records.js';
import { upsert } from '../store/system-db.js';

/** The system_setting row holding a task's next run (epoch milliseconds). */
export const nextRunSetting = (id: Key) => `scheduler_next:${String(id)}`;

export const MINUTE_MS = 60_000;

const VERB_OF_MASK = new Map(Object.entries(VERB_BITS).map(([verb, bit]) => [bit, verb as Verb]));

/** Minutes between runs when none is given (the reference's column default). */
export const DEFAULT_FREQUENCY = 5;

function normalise(record: Row): void {
  if (typeof record.verb === 'string') record.verb = record.verb.trim().toUpperCase();
  // The admin console sends an empty frequency field as null: that is the default, as when it is left out.
  if (record.frequency === null) record.frequency = DEFAULT_FREQUENCY;
  // The reference keeps the body as text; an object or array sent is its JSON.
  if (record.payload !== undefined && record.payload !== null && typeof record.payload !== 'string')
    record.payload = JSON.stringify(record.payload);
}

function prepare(prepared: Prepared, record: Row, mode: 'create' | 'update'): void {
  const columns = prepared.columns;
  // The body is sent as JSON when the task runs: text that is not JSON is refused now, not at every run.
  if (typeof columns.payload === 'string' && columns.payload.trim() !== '') {
    try {
      JSON.parse(columns.payload);
    } catch {
      throw new BadRequestError("Field 'payload' must be JSON text (or an object or array).", { field: 'payload' });
    }
  }
  if (mode === 'create' && columns.is_active === undefined) columns.is_active = 1;
  const fromMask = typeof columns.verb_mask === 'number' ? VERB_OF_MASK.get(columns.verb_mask) : undefined;
  if (typeof columns.verb === 'string') {
    const mask = VERB_BITS[columns.verb as Verb];
    if (fromMask !== undefined && fromMask !== columns.verb)
      throw new BadRequestError(`Fields 'verb' (${columns.verb}) and 'verb_mask' (${String(record.verb_mask)}) name different verbs.`, {
        field: 'verb_mask',
      });
    columns.verb_mask = mask;
  } else if (fromMask !== undefined) columns.verb = fromMask;
}

/** Starts a task's period again when it is created, or its frequency or activation changes. */
async function written(w: WriteContext, verb: 'create' | 'update', key: Key, prepared: Prepared): Promise<void> {
  if (verb === 'update' && prepared.columns.frequency === undefined && prepared.columns.is_active === undefined) return;
  const row = await w.db.selectFrom('scheduler_task').select('frequency').where('id', '=', Number(key)).executeTakeFirstOrThrow();
  const next = String(w.ctx.clock.now() + row.frequency * MINUTE_MS);
  await upsert(w.db, 'system_setting', 'name', { name: nextRunSetting(key), value: next }, { value: next });
}

async function check(w: WriteContext, verb: 'create' | 'update' | 'delete', keys: Key[]): Promise<void> {
  if (verb !== 'delete' || keys.length === 0) return;
  await w.db.deleteFrom('system_setting').where('name', 'in', keys.map(nextRunSetting)).execute();
}

export const schedulerBehaviour: ResourceBehaviour = { def: schedulerResource, normalise, prepare, written, check };
