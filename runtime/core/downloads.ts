/**
 * Answers as downloads (reference 1.5): `file=name.ext` on a request makes its answer an
 * attachment of that name, written as CSV for `.csv` and XML for `.xml` (root `dfapi`, a list's
 * records repeated under its key, as the reference writes them), JSON otherwise; `file=true`
 * names it `resource.json`. The reference's admin console downloads its user and administrator
 * lists so (`file=list.csv`). Errors stay JSON in the spec's shape.
 */

/** A Content-Disposition naming a download (RFC 6266): an ASCII fallback in `filename`, the name itself in `filename*` beyond ASCII. */
export function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  if (fallback === name) return `attachment; filename="${name}"`;
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

const TRUE = new Set(['true', '1', 'yes', 'on', 'y', 't']);

/** The download a `file` parameter asks for: its name and format, or null for none. */
export function requestedDownload(file: string | undefined): { name: string; format: 'csv' | 'xml' | 'json' } | null {
  if (file === undefined) return null;
  const value = file.trim();
  if (TRUE.has(value.toLowerCase())) return { name: 'resource.json', format: 'json' };
  // Only a file name (the reference takes one with an extension): its last path segment.
  const name = value.split(/[/\\]/).pop() ?? '';
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return null;
  const extension = name.slice(dot + 1).toLowerCase();
  return { name, format: extension === 'csv' ? 'csv' : extension === 'xml' ? 'xml' : 'json' };
}

/** The records of an answer: a list's, or the one record. */
function recordsOf(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body !== null && typeof body === 'object' && Array.isArray((body as { resource?: unknown }).resource))
    return (body as { resource: unknown[] }).resource;
  return [body];
}

/** A spreadsheet opens a cell starting so as a formula: it is written as text. */
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Records as CSV (RFC 4180): a header of every key in the order first met, one line per record. */
export function toCsv(body: unknown): string {
  const rows = recordsOf(body).map((record) =>
    record !== null && typeof record === 'object' && !Array.isArray(record) ? (record as Record<string, unknown>) : { value: record },
  );
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        keys.push(key);
      }
    }
  }
  const lines = [keys.map(csvCell).join(','), ...rows.map((row) => keys.map((key) => csvCell(row[key])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** A key as an element name: characters a name may not hold become `_`, and it starts with a letter or `_`. */
function elementName(key: string): string {
  const name = key.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(name) && !/^xml/i.test(name) ? name : `_${name}`;
}

function xmlOf(value: unknown, name: string): string {
  const tag = elementName(name);
  if (Array.isArray(value)) return value.map((item) => xmlOf(item, name)).join('');
  if (value === null || value === undefined) return `<${tag}/>`;
  if (typeof value === 'object') {
    return `<${tag}>${Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => xmlOf(item, key))
      .join('')}</${tag}>`;
  }
  return `<${tag}>${escapeXml(String(value))}</${tag}>`;
}

/** An answer as XML under `dfapi`, a list's items repeated under its key (`<resource>…</resource><resource>…</resource>`). */
export function toXml(body: unknown): string {
  const inner =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? Object.entries(body as Record<string, unknown>)
          .map(([key, item]) => xmlOf(item, key))
          .join('')
      : xmlOf(body, 'resource');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<dfapi>${inner}</dfapi>\n`;
}

/** The answer of a request with `file=`, as the download it asks for; null when it asks for none or the answer is no JSON success. */
export function asDownload(
  file: string | undefined,
  status: number,
  body: unknown,
): { body: string | unknown; headers: Record<string, string> } | null {
  const download = requestedDownload(file);
  // JSON answers only: not a file's bytes, a stream or a remote's own text.
  const json =
    body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
  if (download === null || status >= 400 || !json) return null;
  const disposition = { 'content-disposition': attachment(download.name) };
  if (download.format === 'csv') return { body: toCsv(body), headers: { ...disposition, 'content-type': 'text/csv; charset=utf-8' } };
  if (download.format === 'xml')
    return { body: toXml(body), headers: { ...disposition, 'content-type': 'application/xml; charset=utf-8' } };
  return { body, headers: disposition };
}
