/**
 * MTOM answers (SOAP Message Transmission Optimization, XOP): a multipart/related body whose root
 * part is the envelope and whose other parts are binary content the envelope points at with
 * `<xop:Include href="cid:..."/>`. Java stacks with MTOM on answer so. The root comes back as the
 * envelope it stands for, each Include replaced by its part's bytes in base64 (the text an
 * xsd:base64Binary element holds without MTOM).
 */
import { decodeXml } from '../xml-dom.js';
import { decodePercent } from '../../../core/percent-decoding.js';

interface Part {
  headers: Record<string, string>;
  content: Buffer;
}

/** A parameter of a header value (`boundary="x"`, `start=<root>`), unquoted. */
function parameter(value: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]*))`, 'i').exec(value);
  return match === null ? undefined : (match[1] ?? match[2]);
}

function parts(body: Buffer, boundary: string): Part[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const found: Part[] = [];
  let start = body.indexOf(delimiter);
  while (start >= 0) {
    const contentStart = start + delimiter.length;
    // `--boundary--` closes the body.
    if (body.subarray(contentStart, contentStart + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, contentStart);
    if (next < 0) break;
    // The part runs from the line after the delimiter to the CRLF before the next one.
    let part = body.subarray(contentStart, next);
    part = part.subarray(part.indexOf('\n') + 1);
    if (part.subarray(-2).toString() === '\r\n') part = part.subarray(0, -2);
    else if (part.subarray(-1).toString() === '\n') part = part.subarray(0, -1);
    // Headers end at the first empty line (CRLF CRLF, or LF LF from a lax peer).
    const crlf = part.indexOf('\r\n\r\n');
    const [split, gap] = crlf >= 0 ? [crlf, 4] : [part.indexOf('\n\n'), 2];
    const headerText = split < 0 ? '' : part.subarray(0, split).toString('latin1');
    const headers: Record<string, string> = {};
    for (const line of headerText.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    found.push({ headers, content: split < 0 ? part : part.subarray(split + gap) });
    start = next;
  }
  return found;
}

const contentId = (value: string | undefined) => (value ?? '').trim().replace(/^<|>$/g, '');

/** A cid: URL's Content-ID (URL-escaped: `part1%40host`); a malformed escape stays as written. */
function unescapeCid(cid: string): string {
  return decodePercent(cid) ?? cid;
}

/** The envelope of a multipart/related (MTOM) answer with its Includes inlined, or null when it has no parts. */
export function xopEnvelope(body: Buffer, contentType: string): string | null {
  const boundary = parameter(contentType, 'boundary');
  if (boundary === undefined) return null;
  const all = parts(body, boundary);
  if (all.length === 0) return null;
  const start = contentId(parameter(contentType, 'start'));
  const root = all.find((part) => start !== '' && contentId(part.headers['content-id']) === start) ?? all[0];
  const attachments = new Map(all.filter((part) => part !== root).map((part) => [contentId(part.headers['content-id']), part]));
  const text = decodeXml(root.content, parameter(root.headers['content-type'] ?? '', 'charset'));
  return text.replace(
    /<(?:[A-Za-z_][\w.-]*:)?Include\b[^>]*?\bhref\s*=\s*["']cid:([^"']*)["'][^>]*?(?:\/>|>\s*<\/(?:[A-Za-z_][\w.-]*:)?Include\s*>)/g,
    (whole, cid: string) => {
      const attachment = attachments.get(unescapeCid(cid)) ?? attachments.get(cid);
      if (attachment === undefined) return whole;
      const encoding = (attachment.headers['content-transfer-encoding'] ?? 'binary').toLowerCase();
      return encoding === 'base64' ? attachment.content.toString('latin1').replace(/\s+/g, '') : attachment.content.toString('base64');
    },
  );
}
