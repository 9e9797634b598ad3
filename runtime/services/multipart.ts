/**
 * multipart/form-data uploads, streamed: each file part is handed to `onFile` as it arrives
 * (busboy holds the next part back until the previous one was read), text fields are collected.
 */
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { BadRequestError } from '../core/errors.js';

export interface UploadedPart {
  field: string;
  filename: string;
  mimeType: string;
  stream: Readable;
}

export function isMultipart(contentType: string | undefined): boolean {
  return /^multipart\/form-data\b/i.test(contentType ?? '');
}

/** Runs `onFile` on every file part in order; the first failure stops the upload and is thrown. */
export async function eachUploadedFile(
  body: Readable,
  headers: Record<string, string | string[] | undefined>,
  onFile: (part: UploadedPart) => Promise<void>,
): Promise<Record<string, string>> {
  const fields: Record<string, string> = {};
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: headers as import('node:http').IncomingHttpHeaders,
      defParamCharset: 'utf8',
      limits: { fields: 100, fieldSize: 1024 * 1024 },
    });
  } catch (error) {
    throw new BadRequestError(`Invalid multipart request: ${(error as Error).message}.`);
  }
  let failure: unknown = null;
  let chain = Promise.resolve();
  parser.on('field', (name, value) => {
    fields[name] = value;
  });
  parser.on('file', (field, stream, info) => {
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
  await new Promise<void>((resolve, reject) => {
    parser.on('close', resolve);
    parser.on('error', (error: Error) => reject(new BadRequestError(`Invalid multipart request: ${error.message}.`)));
    body.on('error', reject);
    body.pipe(parser);
  });
  await chain;
  if (failure !== null) throw failure;
  return fields;
}
