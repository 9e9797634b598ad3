/**
 * Strict base64: Node's decoder skips any character outside the alphabet, so `"!!!"` or a cut
 * text would decode to other bytes than were meant and be stored as if nothing were wrong.
 */
const BASE64_TEXT = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of a base64 text (white space ignored), or null when it is not base64. */
export function decodeBase64(value: string): Buffer | null {
  const text = value.replace(/\s+/g, '');
  return text.length % 4 === 0 && BASE64_TEXT.test(text) ? Buffer.from(text, 'base64') : null;
}
