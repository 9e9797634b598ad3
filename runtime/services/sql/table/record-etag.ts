/**
 * Entity tags of single records (`GET _table/{table}/{id}` answers with one; `If-Match` on a
 * single-record PUT, PATCH or DELETE must name it): a weak tag from a hash of the whole record as
 * served, so that a client can tell whether the record changed since it read it.
 */
import crypto from 'node:crypto';
import type { ServiceResult } from '../../service-kind.js';

/** `W/"<base64url of SHA-1>"` of a record's JSON text. */
function etagOf(json: string): string {
  return `W/"${crypto.hash('sha1', json, 'base64url')}"`;
}

/** `W/"<base64url of SHA-1>"` of the record's JSON. */
export function recordEtag(record: Record<string, unknown>): string {
  return etagOf(JSON.stringify(record));
}

/**
 * A whole record as an answer, with its tag. The JSON text the tag hashes is the answer's body as
 * sent (ServiceResult.json): the record is serialised once.
 */
export function taggedRecord(record: Record<string, unknown>): ServiceResult {
  const text = JSON.stringify(record);
  return { body: record, headers: { etag: etagOf(text) }, json: { of: record, text } };
}

/** Whether an `If-Match` header value names the tag (`*` names any; weak tags compare by value, as RFC 9110 allows for If-Match's weak use here). */
export function etagMatches(header: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}
