/**
 * The spec's envelope: lists as {"resource":[...]} (+ meta), single records bare, and the
 * unwrapping of write bodies.
 */
import { coreMessages } from './messages.js';

export interface ListMeta {
  count?: number;
  next?: number;
  [key: string]: unknown;
}

export interface ListEnvelope<T = unknown> {
  resource: T[];
  meta?: ListMeta;
}

/** Wraps a list; `meta` is added only when given. */
export function wrapList<T>(records: T[], meta?: ListMeta): ListEnvelope<T> {
  return meta === undefined ? { resource: records } : { resource: records, meta };
}

/**
 * Reads the records of a multi-record write body: `{"resource":[...]}`, `{"resource":{...}}`
 * (one record) or a bare array. A bare object is not a record list.
 */
export function unwrapRecords(body: unknown): Record<string, unknown>[] {
  let list: unknown = body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    if (!('resource' in body)) throw coreMessages.noRecords.error();
    list = (body as { resource: unknown }).resource;
    if (list !== null && typeof list === 'object' && !Array.isArray(list)) list = [list];
  }
  if (!Array.isArray(list) || list.length === 0) throw coreMessages.noRecords.error();
  list.forEach((record, index) => {
    if (record === null || typeof record !== 'object' || Array.isArray(record)) {
      throw coreMessages.recordNotObject.error(index);
    }
  });
  return list as Record<string, unknown>[];
}

/** Reads the bare object body of a single-record write. */
export function unwrapRecord(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw coreMessages.bodyNotObject.error();
  }
  const resource = (body as { resource?: unknown }).resource;
  // Some clients send {resource:[{...}]} to a by-id PATCH; take its one record.
  if (Array.isArray(resource) && resource.length === 1 && resource[0] !== null && typeof resource[0] === 'object') {
    return resource[0] as Record<string, unknown>;
  }
  return body as Record<string, unknown>;
}
