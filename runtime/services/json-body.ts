/**
 * Answers whose body a service has written as JSON text already: a record read hashes its
 * record's JSON for the ETag, and the HTTP answer sends that same text instead of serialising the
 * record a second time. The text belongs to the answer object the service returned: an answer
 * made anew (by a hook, by the response cache, a custom endpoint answering with a record it read
 * through the in-process API) has none and is serialised as any other, and whatever may change
 * the body of the same answer in place (a post_process hook) forgets its text first.
 */
import type { ServiceResult } from './service-kind.js';

const texts = new WeakMap<ServiceResult, string>();

/** Notes `text` (JSON.stringify of its body) as the answer's body as sent. */
export function noteJsonText(result: ServiceResult, text: string): ServiceResult {
  texts.set(result, text);
  return result;
}

/** The JSON text of the answer's body, if the service noted one. */
export function jsonTextOf(result: ServiceResult): string | undefined {
  return texts.get(result);
}

/** Forgets the answer's text: its body may be changed. */
export function forgetJsonText(result: ServiceResult): void {
  texts.delete(result);
}
