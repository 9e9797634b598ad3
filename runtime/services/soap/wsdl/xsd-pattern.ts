/**
 * XML Schema regular expressions (xs:pattern) as JavaScript ones (the `u` flag), for the JSON
 * Schema `pattern` the request writer checks and the OpenAPI document shows. The dialects differ:
 * an XSD pattern matches the whole value (so it is anchored here), `^` and `$` are plain
 * characters, `.` excludes only CR and LF, `\d` and `\w` are Unicode classes, and there are the
 * XML name classes `\i` `\c`, block escapes `\p{IsBasicLatin}` and class subtraction `[a-z-[aeiou]]`,
 * which JavaScript lacks. A pattern using one of those, or that JavaScript cannot compile, is
 * left unchecked (null): refusing a value the host would take is worse than passing one on.
 */

/** XSD escapes written differently in JavaScript, outside and inside a character class (null: no translation there). */
const ESCAPES: Record<string, [string, string | null]> = {
  d: ['\\p{Nd}', '\\p{Nd}'],
  D: ['\\P{Nd}', '\\P{Nd}'],
  w: ['[^\\p{P}\\p{Z}\\p{C}]', null],
  W: ['[\\p{P}\\p{Z}\\p{C}]', null],
  s: ['[ \\t\\n\\r]', ' \\t\\n\\r'],
  S: ['[^ \\t\\n\\r]', null],
  '-': ['-', '\\-'],
};

/** The escapes both dialects write alike. */
const PLAIN_ESCAPES = new Set(['n', 'r', 't', '\\', '|', '.', '?', '*', '+', '(', ')', '{', '}', '[', ']', '^', '$']);

/** The JavaScript source of one XSD pattern, unanchored, or null when it cannot be translated. */
function translate(pattern: string): string | null {
  let out = '';
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') {
      const next = pattern[index + 1];
      if (next === undefined) return null;
      index++;
      if (next === 'p' || next === 'P') {
        const end = pattern.indexOf('}', index);
        if (pattern[index + 1] !== '{' || end < 0) return null;
        const name = pattern.slice(index + 2, end);
        // General categories only: JavaScript has no Unicode block escapes (IsBasicLatin).
        if (!/^[LMNPSZC][a-z]?$/.test(name)) return null;
        out += `\\${next}{${name}}`;
        index = end;
        continue;
      }
      const translated = ESCAPES[next];
      if (translated !== undefined) {
        const written = inClass ? translated[1] : translated[0];
        if (written === null) return null;
        out += written;
        continue;
      }
      if (!PLAIN_ESCAPES.has(next)) return null;
      out += `\\${next}`;
      continue;
    }
    if (inClass) {
      // Class subtraction (`-[`) has no JavaScript form.
      if (char === '-' && pattern[index + 1] === '[') return null;
      if (char === '[') return null;
      if (char === ']') inClass = false;
      out += char;
      continue;
    }
    if (char === '[') {
      inClass = true;
      out += char;
      if (pattern[index + 1] === '^') {
        out += '^';
        index++;
      }
      continue;
    }
    if (char === '^' || char === '$') out += `\\${char}`;
    else if (char === '.') out += '[^\\n\\r]';
    else out += char;
  }
  return inClass ? null : out;
}

/**
 * The JavaScript pattern of a restriction's pattern facets: one of `alternatives` must match (XSD
 * ORs the patterns of one restriction) and, when the base type has one, `base` as well (XSD ANDs
 * those of successive restrictions). Null when one of them cannot be translated.
 */
export function xsdPattern(alternatives: readonly string[], base?: string): string | null {
  const parts = alternatives.map(translate);
  if (parts.some((part) => part === null)) return null;
  // The base's pattern is anchored already (`^...$`): it becomes a lookahead at the start.
  const source = `^${base === undefined ? '' : `(?=${base.slice(1)})`}(?:${parts.map((part) => `(?:${part})`).join('|')})$`;
  try {
    new RegExp(source, 'u');
  } catch {
    return null;
  }
  return source;
}

/** xsd:duration's lexical form: P, then at least one part, and after T at least one time part. */
export const DURATION_PATTERN = '^-?P(?!$)(?:\\d+Y)?(?:\\d+M)?(?:\\d+D)?(?:T(?!$)(?:\\d+H)?(?:\\d+M)?(?:\\d+(?:\\.\\d*)?S)?)?$';
