/**
 * A POST tunnelled as HEAD (X-HTTP-Method: HEAD, ...) runs as GET and answers headers only. Node
 * drops the body of a real HEAD's answer itself; a POST's answer it frames with Content-Length,
 * so the body is dropped here and the length said is 0 (the client reads the answer as a POST's:
 * the GET body's length would leave it waiting for bytes that never come).
 *
 * The places that send such a request's answer (the dispatch, the root listing, the error handler)
 * ask for it, rather than an onSend hook on the routes: that hook ran for every request they serve.
 * A POST is marked from its headers and query in the server's onRequest hook, before its body is
 * read, so that a refusal of the body (malformed, undecodable, too large) goes without a body too;
 * the dispatch and the root listing mark it again once the body's own `_method` is known.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

const headersOnly = new WeakSet<FastifyRequest>();

/** Marks a request whose answer, whatever it is (errors included), goes without its body. */
export function answerHeadersOnly(request: FastifyRequest): void {
  headersOnly.add(request);
}

/** Unmarks a request marked from its headers whose body asked another verb (`_method`, which comes first). */
export function answerWithBody(request: FastifyRequest): void {
  headersOnly.delete(request);
}

/** Whether a request was marked so (the error handler asks: its answer is a failure's). */
export function answersHeadersOnly(request: FastifyRequest): boolean {
  return headersOnly.has(request);
}

/** The content type Fastify gives a body it is sent without one. */
function defaultContentType(payload: unknown): string {
  if (typeof payload === 'string') return 'text/plain; charset=utf-8';
  if (Buffer.isBuffer(payload)) return 'application/octet-stream';
  return 'application/json; charset=utf-8';
}

/**
 * Sends an answer's status and headers without its body: Content-Length 0 (Fastify says so of an
 * empty answer), the type the body would have had.
 */
export function sendHeadersOnly(reply: FastifyReply, payload: unknown): FastifyReply {
  // A stream (a file's content) is read to its end and let go, as Fastify does for a HEAD route.
  if (payload !== null && typeof payload === 'object' && typeof (payload as { resume?: unknown }).resume === 'function') {
    const stream = payload as NodeJS.ReadableStream;
    stream.on('error', (error) => reply.log.warn({ err: error }, 'stream of a tunnelled HEAD answer failed'));
    stream.resume();
  } else if (!reply.hasHeader('content-type')) reply.header('content-type', defaultContentType(payload));
  return reply.send();
}
