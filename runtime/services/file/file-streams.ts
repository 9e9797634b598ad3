/** Stream helpers of the file engine: size limits, JSON bodies, byte ranges, content types. */
import { Readable, Transform } from 'node:stream';
import mime from 'mime-types';
import { BadRequestError, PayloadTooLargeError } from '../../core/errors.js';
export { header, readAll, readJson } from '../request-body.js';
import type { ByteRange } from './file-storage.js';

export function tooLarge(max: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The file is larger than this service accepts (${max} bytes).`);
}

/** Passes bytes through, failing with 413 once more than `max` went by. */
export function limited(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max) done(tooLarge(max));
      else done(null, chunk);
    },
  });
}

/**
 * The source through a size limit (413 beyond), read only as the result is read: nothing flows,
 * and no error is raised, before a consumer pulls.
 */
export function capped(source: Readable, max: number): Readable {
  return Readable.from(
    (async function* () {
      let seen = 0;
      for await (const chunk of source) {
        seen += (chunk as Buffer).length;
        if (seen > max) throw tooLarge(max);
        yield chunk as Buffer;
      }
    })(),
    { objectMode: false, highWaterMark: 64 * 1024 },
  );
}

/** The content type of a file name, by its extension. */
export function contentTypeOf(name: string): string {
  const type = mime.lookup(name);
  if (!type) return 'application/octet-stream';
  return mime.contentType(type) || type;
}

/**
 * The byte range of a `Range` header for a file of `size` bytes: undefined when there is none
 * (or it is not a single byte range: then the whole file is sent), null when unsatisfiable (416).
 */
export function parseRange(header: string | string[] | undefined, size: number): ByteRange | null | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (!text) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(text.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return null;
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return null;
  return { start, end };
}

/** Whether a file upload is a zip archive, by content type or name. */
export function isZip(contentType: string | undefined, name: string): boolean {
  return /^application\/(x-)?zip(-compressed)?\b/i.test(contentType ?? '') || name.toLowerCase().endsWith('.zip');
}

export function badRequest(message: string): BadRequestError {
  return new BadRequestError(message);
}
