/** Bodies of raw-body services (ServiceKind.rawBody) read from the request stream, and header values. */
import { Transform, type Readable } from 'node:stream';
import { InvalidJsonError, PayloadTooLargeError } from '../core/errors.js';

/** The largest request body a server takes unless configured otherwise (the README's limits table). */
export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

/** Reads a (small) body whole; more than `max` bytes is 413. */
export async function readAll(stream: Readable | undefined, max: number): Promise<Buffer> {
  if (!stream) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > max) throw new PayloadTooLargeError();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Passes a body through, failing with 413 once more than `max` bytes went by; `onChunk` hears each piece. */
export function bodyLimited(max: number, onChunk?: () => void): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      onChunk?.();
      if (seen > max) done(new PayloadTooLargeError());
      else done(null, chunk);
    },
  });
}

/** Whether a declared Content-Length is beyond `max` bytes. */
export function declaredBeyond(headers: Record<string, string | string[] | undefined>, max: number): boolean {
  const declared = Number(header(headers, 'content-length'));
  return Number.isFinite(declared) && declared > max;
}

/** A JSON body read from the request stream; undefined when empty. */
export async function readJson(stream: Readable | undefined, max = DEFAULT_BODY_LIMIT): Promise<unknown> {
  const text = (await readAll(stream, max)).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidJsonError();
  }
}

export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
