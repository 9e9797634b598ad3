/**
 * multipart/form-data uploads, streamed: each file part is handed to `onFile` as it arrives
 * (busboy holds the next part back until the previous one was read), text fields are collected.
 */
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { BadRequestError, PayloadTooLargeError } from '../core/errors.js';

export interface UploadedPart {
  field: string;
  filename: string;
  mimeType: string;
  stream: Readable;
}

export function isMultipart(contentType: string | undefined): boolean {
  return /^multipart\/form-data\b/i.test(contentType ?? '');
}

/** Bytes a form may send before its first part (a body without a boundary is all preamble). */
const MAX_PREAMBLE_BYTES = 1024 * 1024;
const MAX_FIELDS = 100;

/**
 * Runs `onFile` on every file part in order; the first failure stops the upload and is thrown. A
 * body beyond `maxBytes`, 1 MiB without a part, or more than 100 fields, is refused: a body that
 * never held a boundary, or fields without end, was read for ever, with no answer.
 */
export async function eachUploadedFile(
  body: Readable,
  headers: Record<string, string | string[] | undefined>,
  onFile: (part: UploadedPart) => Promise<void>,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<Record<string, string>> {
  const fields: Record<string, string> = {};
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: headers as import('node:http').IncomingHttpHeaders,
      defParamCharset: 'utf8',
      limits: { fields: MAX_FIELDS, fieldSize: 1024 * 1024 },
    });
  } catch (error) {
    throw new BadRequestError(`Invalid multipart request: ${(error as Error).message}.`);
  }
  let failure: unknown = null;
  let chain = Promise.resolve();
  parser.on('field', (name, value) => {
    parts += 1;
    fields[name] = value;
  });
  let total = 0;
  let parts = 0;
  parser.on('file', (field, stream, info) => {
    parts += 1;
    // A form that ends inside this part (no closing boundary) errors the part's stream at once,
    // before `onFile` reads it: without a listener that error was uncaught and ended the process.
    // Whoever reads the stream still sees the error, and so does the parser's 'error' below.
    stream.on('error', () => undefined);
    chain = chain.then(async () => {
      if (failure !== null) {
        stream.resume();
        return;
      }
      try {
        await onFile({ field, filename: info.filename ?? '', mimeType: info.mimeType, stream });
      } catch (error) {
        failure = error;
        stream.resume();
      }
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      parser.on('close', resolve);
      parser.on('error', (error: Error) => reject(new BadRequestError(`Invalid multipart request: ${error.message}.`)));
      body.on('error', reject);
      const stop = (error: Error) => {
        body.unpipe(parser);
        body.resume();
        parser.destroy(error);
        reject(error);
      };
      body.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > maxBytes || (parts === 0 && total > MAX_PREAMBLE_BYTES)) stop(new PayloadTooLargeError());
      });
      parser.on('fieldsLimit', () => stop(new BadRequestError(`Invalid multipart request: more than ${MAX_FIELDS} fields.`)));
      body.pipe(parser);
    });
  } catch (error) {
    // The body failed (the client went away midway, a limit): the part being read fails with it, so
    // that its upload is abandoned (its temporary file removed, its handle closed) instead of
    // waiting for the rest of a body that will never come; the upload stops before the error is answered.
    parser.destroy(error as Error);
    await chain;
    throw error;
  }
  await chain;
  if (failure !== null) throw failure;
  return fields;
}
