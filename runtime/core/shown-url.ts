/**
 * URLs as messages may show them: without the user and password a caller or a configuration put in
 * them, and with the values of query parameters that carry secrets (`api_key`, `token`,
 * `X-Amz-Signature`, ...) masked. Error messages reach the caller and the log; a URL's credentials must not.
 */

/** Query parameter names whose values are secrets. */
const SECRET_PARAM = /key|token|secret|passw|pwd|signature|credential|auth|session|(^|[^a-z])sig([^a-z]|$)/i;
const MASK = '***';

/** `url` without its credentials and with secret query values masked; text that is no URL has any `//user:pass@` cut. */
export function shownUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return withoutUserInfo(String(url));
  }
  parsed.username = '';
  parsed.password = '';
  const secrets = [...new Set(parsed.searchParams.keys())].filter((name) => SECRET_PARAM.test(name));
  // Rewritten only when needed: URLSearchParams re-encodes the rest of the query (`%20` as `+`).
  // set() keeps the parameter where it was (a repeated one once).
  for (const name of secrets) parsed.searchParams.set(name, MASK);
  return parsed.href;
}

/** Any text (a client library's error message) with each URL in it shown as shownUrl shows it. */
export function withoutUrlSecrets(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>`]+/gi, (url) => {
    // A URL that ends a sentence: its last dot or comma is the sentence's.
    const trailing = /[.,;:)]+$/.exec(url)?.[0] ?? '';
    return shownUrl(url.slice(0, url.length - trailing.length)) + trailing;
  });
}

/** `//user:password@` cut from text that does not parse as a URL. */
function withoutUserInfo(text: string): string {
  return text.replace(/\/\/[^/\s@]*@/g, '//');
}
