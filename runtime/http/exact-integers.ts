/**
 * JSON integers a double can not hold exactly (9007199254740993, 9223372036854775807) would reach
 * the database as another number: JSON.parse rounds them, and a bigint column would store the
 * rounded value or refuse 2^63 - 1 as beyond 64 bits. Such a literal is quoted before parsing, so
 * that the value keeps its digits (the codecs take integer text); one written as its double prints
 * (1e20 written out, a JavaScript client's 2^63 as 9223372036854776000) stays a number, in a JSON
 * document too. Only bodies with a run of 16 digits are scanned.
 */

const LONG_DIGITS = /\d{16}/;
/** A number token where the scan stands; only a JSON integer (no leading zero) of 16 digits or more is looked at. */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const INTEGER = /^-?[1-9]\d{15,}$/;

/**
 * Whether the literal says more than its double: a serialiser that had the double (JavaScript's,
 * any shortest round-trip one) writes exactly `String(double)`, which is left a number.
 */
function inexact(token: string): boolean {
  if (!INTEGER.test(token)) return false;
  const value = Number(token);
  return Number.isFinite(value) && String(value) !== token;
}

/** `text` with each integer value a double would round quoted, as the same digits in a string. */
export function quoteInexactIntegers(text: string): string {
  if (!LONG_DIGITS.test(text)) return text;
  let out = '';
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22) {
      // A string: skip to its closing quote, past escaped characters.
      i++;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i++;
      continue;
    }
    if (ch === 0x2d || (ch >= 0x30 && ch <= 0x39)) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(text)?.[0] ?? text[i];
      const end = i + token.length;
      // Never a member name: `{123...: 1}` is not JSON and must stay so.
      let next = end;
      while (next < text.length && ' \t\n\r'.includes(text[next])) next++;
      if (text[next] !== ':' && inexact(token)) {
        out += `${text.slice(from, i)}"${token}"`;
        from = end;
      }
      i = end;
      continue;
    }
    i++;
  }
  return from === 0 ? text : out + text.slice(from);
}
