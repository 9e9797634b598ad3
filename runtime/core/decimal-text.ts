/**
 * Decimal numbers as text, where a double would lose digits: an exact SQL decimal's value as the
 * driver reads it, an xs:decimal in a SOAP response. Both ask one question: does the double nearest
 * the text give back the same value, so that it can be a JSON number without losing a digit?
 */

const DECIMAL_PARTS = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** A decimal text's parts: its sign, its significant digits (no leading or trailing zeros) and where its point stands among them. */
interface DecimalParts {
  negative: boolean;
  /** '' for zero. */
  digits: string;
  /** How many of `digits` stand before the decimal point (negative or beyond them for small and large values). */
  point: number;
}

function decimalParts(text: string): DecimalParts | null {
  const match = DECIMAL_PARTS.exec(text);
  if (match === null || (match[2] === '' && (match[3] ?? '') === '')) return null;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const all = whole + fraction;
  const lead = /^0*/.exec(all)![0].length;
  const digits = all.slice(lead).replace(/0+$/, '');
  return { negative: sign === '-' && digits !== '', digits, point: whole.length - lead + Number(exponent) };
}

/**
 * A decimal's value as comparable text (sign, significant digits, exponent), or null when the text
 * is no decimal: '010.50', '10.5' and '1.05e1' are one value, '-0' and '0.00' are '0'.
 */
export function decimalValue(text: string): string | null {
  const parts = decimalParts(text);
  if (parts === null) return null;
  return parts.digits === '' ? '0' : `${parts.negative ? '-' : ''}${parts.digits}e${parts.point}`;
}

/**
 * Whether the double nearest a decimal's text is that value exactly, digit for digit: `12.50` and
 * `1.05e1` are, `0.1000000000000000000001` and `9007199254740993` are not, nor is text that is no
 * decimal or beyond a double's range.
 */
export function isHeldByDouble(text: string): boolean {
  const number = Number(text);
  if (!Number.isFinite(number)) return false;
  const value = decimalValue(text);
  return value !== null && value === decimalValue(String(number));
}

/**
 * A decimal's plain text: no `+`, no leading zeros of the whole part nor trailing zeros of the
 * fraction, an exponent written out (`1.50e3` is `1500`), `-0` as `0`; null when the text is no
 * decimal. For a database's or a double's text: an exponent of millions would be written out too.
 */
export function plainDecimal(text: string): string | null {
  const parts = decimalParts(text);
  if (parts === null) return null;
  const { negative, point } = parts;
  if (parts.digits === '') return '0';
  const digits = point < 0 ? '0'.repeat(-point) + parts.digits : parts.digits.padEnd(point, '0');
  const at = Math.max(point, 0);
  const integer = digits.slice(0, at) || '0';
  const fraction = digits.slice(at);
  return `${negative ? '-' : ''}${integer}${fraction === '' ? '' : `.${fraction}`}`;
}
