/**
 * Percent-decoding of one part of a URL (a path segment, a name taken from a URL) as clients and
 * remotes write them, malformed ones included: `a%zz` and `%FF` (no UTF-8) make decodeURIComponent
 * throw a URIError, a 500 wherever it escaped. Each caller answers a malformed part its own way
 * (keeps it as written, or refuses it), so this says only that it is one.
 */

/** The part decoded, or null when its percent-encoding is malformed. */
export function decodePercent(text: string): string | null {
  // Nearly every segment has no escape: no call, no try.
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * A JSON Schema pattern of text whose every '%' starts an escape (`%` and two hex digits), for
 * configured URLs: `gen check` and the API then refuse `p%ss` in a password before a service opens.
 */
export const WELL_FORMED_ESCAPES = '^(?:[^%]|%[0-9A-Fa-f]{2})*$';
export const WELL_FORMED_ESCAPES_MESSAGE = "must write '%' as %25: each '%' starts an escape of two hex digits";
