/** Bodies of raw-body services (ServiceKind.rawBody) read from the request stream, and header values. */
import type { Readable } from 'node:stream';
import { InvalidJsonError, PayloadTooLargeError } from '../core/errors.js';

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

/** A JSON body read from the request stream; undefined when empty. */
export async function readJson(stream: Readable | undefined, max = 10 * 1024 * 1024): Promise<unknown> {
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
