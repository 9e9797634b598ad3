/**
 * Request bodies: JSON (with Fastify's prototype-poisoning protection), an empty body as no body,
 * and a body without a JSON content type still read as JSON (clients omit the header). Strings
 * no database stores faithfully (NUL, lone surrogates) are refused here, once for every service,
 * as are bytes that are not UTF-8; integers a double would round keep their digits (exact-integers.ts).
 * Requests to services whose kind reads its own bodies (file uploads, proxies) are left unread:
 * the handler gets the stream (see bodyStream).
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { InvalidJsonError, PayloadTooLargeError } from '../core/errors.js';
import { findUnacceptableText } from '../core/request-limits.js';
import { coreMessages } from '../core/messages.js';
import { quoteInexactIntegers } from './exact-integers.js';
import { decodedBody, type DecodedBody } from './body-encoding.js';

const streams = new WeakMap<FastifyRequest, Readable>();
const sockets = new WeakMap<FastifyRequest, Socket>();

/** The unread body of a request to a raw-body service, if it has one. */
export function bodyStream(request: FastifyRequest): Readable | undefined {
  return streams.get(request);
}

/**
 * Reads a body as text, refusing more than `limit` bytes (413) as Fastify's own parser does; calls
 * `done` once. (A callback, not a promise: every write request reads its body here.)
 */
function readText(
  payload: Readable,
  declared: string | undefined,
  limit: number,
  done: (error: Error | null, text?: string) => void,
  stop: () => void = () => {
    payload.removeAllListeners('data');
    payload.resume();
  },
): void {
  if (declared !== undefined && Number(declared) > limit) {
    done(new PayloadTooLargeError());
    return;
  }
  // One chunk (most bodies) needs no array; two listeners, as Fastify's own parser has ('error' ends it too).
  let first: Buffer | null = null;
  let more: Buffer[] | null = null;
  let size = 0;
  let settled = false;
  const onData = (chunk: Buffer) => {
    if (settled) return;
    size += chunk.length;
    if (size > limit) {
      settled = true;
      stop();
      done(new PayloadTooLargeError());
      return;
    }
    if (first === null) first = chunk;
    else if (more === null) more = [first, chunk];
    else more.push(chunk);
  };
  const onEnd = (error?: Error) => {
    if (settled) return;
    settled = true;
    if (error) {
      done(error);
      return;
    }
    const bytes = more !== null ? Buffer.concat(more) : (first ?? Buffer.alloc(0));
    if (declared !== undefined && Number(declared) !== size) done(coreMessages.contentLengthMismatch.error());
    // JSON is UTF-8 (RFC 8259): decoding other bytes would store U+FFFD in place of what was sent.
    else if (!isUtf8(bytes)) done(coreMessages.bodyNotUtf8.error());
    else done(null, bytes.toString('utf8'));
  };
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
}

/** How long the rest of a body its service left unread is still read, before the connection is cut. */
const UNREAD_BODY_MS = 5_000;

/**
 * For a request to a raw-body service (call it once its handler starts). A service that answered
 * before reading its whole body (a 413, a refusal): Node.js reads the rest to reuse the
 * connection, for ever when the body has no end. The rest is read 5 s after the answer (a client
 * that sends all before reading still gets it), then the connection is cut. A listener of this
 * request's answer only: a route hook would make every request of the route (table writes among
 * them) pay for Fastify's response listeners.
 */
export function cutUnreadBody(request: FastifyRequest, reply: FastifyReply): void {
  // Taken when the body arrived: a request stream its reader destroyed no longer names it.
  const socket = sockets.get(request);
  reply.raw.once('finish', () => {
    // (`complete` is false only on a real connection: not under inject.)
    if (request.raw.complete !== false) return;
    setTimeout(() => {
      if (!request.raw.complete) socket?.destroy();
    }, UNREAD_BODY_MS).unref();
  });
}

const FORBIDDEN_MEMBER = "Invalid JSON: a member named '__proto__', or 'constructor' holding 'prototype', is not accepted.";

function wellFormed(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** `rawBody(url)` says whether the request's service reads its body itself. */
export function installBodyParsing(app: FastifyInstance, rawBody: (url: string) => boolean = () => false): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(['application/json', 'text/plain', '*'], (request, payload, done) => {
    if (rawBody(request.url)) {
      streams.set(request, payload);
      if (request.raw.socket) sockets.set(request, request.raw.socket);
      done(null, undefined);
      return;
    }
    let decoded: DecodedBody | null;
    try {
      decoded = decodedBody(payload, request.headers['content-encoding']);
    } catch (error) {
      payload.resume();
      done(error as Error, undefined);
      return;
    }
    // Content-Length counts the encoded bytes: only the decoded size is checked.
    const declared = decoded === null ? request.headers['content-length'] : undefined;
    const read = (failed: Error | null, text = '') => {
      if (failed !== null) {
        done(decoded?.failed() ? coreMessages.bodyNotDecodable.error(String(request.headers['content-encoding'])) : failed, undefined);
        return;
      }
      if (text.trim() === '') {
        done(null, undefined);
        return;
      }
      parseJson(request, quoteInexactIntegers(text), (error, value) => {
        if (error) {
          // Fastify's parser says only that parsing failed: well-formed JSON failed for a member that
          // would set an object's prototype (a column named `__proto__` can not be written).
          done(wellFormed(text) ? new InvalidJsonError(FORBIDDEN_MEMBER) : new InvalidJsonError(), undefined);
          return;
        }
        // A NUL or a lone surrogate can reach a parsed string only as a `\u` escape: the text is valid
        // UTF-8 (no surrogates) and JSON takes no raw control characters. Most bodies have none to walk.
        const bad = text.includes('\\u') ? findUnacceptableText(value) : null;
        if (bad === null) done(null, value);
        else done(coreMessages.invalidBodyText.error(bad.path, bad.reason), undefined);
      });
    };
    if (decoded === null) readText(payload, declared, bodyLimit, read);
    else readText(decoded.stream, declared, bodyLimit, read, decoded.stop);
  });
}
