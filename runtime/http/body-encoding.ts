/**
 * Request bodies a client compressed (Content-Encoding: gzip, deflate, br): decoded as they
 * arrive, so the body limit counts the decoded bytes (body-parsing.ts) and a small zip bomb is
 * refused once it has inflated past the limit, not after. An encoding we do not decode is a 415
 * naming it: reading its bytes as JSON would only say "not UTF-8".
 */
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { coreMessages } from '../core/messages.js';

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

export interface DecodedBody {
  stream: Readable;
  /** Stops decoding (the limit was passed); the rest of the raw body is still read, as for a plain body. */
  stop: () => void;
  /** Whether an error the stream ended with is the body not being what its Content-Encoding says. */
  failed: () => boolean;
}

/** The decoded body, or null when the body is not encoded (no header, or `identity`); a 415 for any other encoding. */
export function decodedBody(payload: Readable, header: string | undefined): DecodedBody | null {
  const encoding = header?.trim().toLowerCase() ?? '';
  if (encoding === '' || encoding === 'identity') return null;
  const decoder = DECODERS[encoding]?.();
  if (decoder === undefined) throw coreMessages.unsupportedContentEncoding.error(header ?? '');
  let failed = false;
  // Registered before the reader's own listener: it is told first.
  decoder.once('error', () => {
    failed = true;
  });
  payload.once('error', (error) => decoder.destroy(error));
  payload.pipe(decoder);
  return {
    stream: decoder,
    stop: () => {
      payload.unpipe(decoder);
      decoder.destroy();
      payload.resume();
    },
    failed: () => failed,
  };
}
