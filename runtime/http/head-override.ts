/**
 * A POST tunnelled as HEAD (X-HTTP-Method: HEAD, ...) runs as GET and answers headers only. Node
 * drops the body of a real HEAD's answer itself; a POST's answer it frames with Content-Length,
 * so the body is dropped here and the length said is 0 (the client reads the answer as a POST's:
 * the GET body's length would leave it waiting for bytes that never come).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

const headersOnly = new WeakSet<FastifyRequest>();

/** Marks a request whose answer, whatever it is (errors included), goes without its body. */
export function answerHeadersOnly(request: FastifyRequest): void {
  headersOnly.add(request);
}

/** The onSend hook of the routes that take tunnelled verbs. */
export function dropTunnelledHeadBody(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: null, payload: unknown) => void,
): void {
  if (!headersOnly.has(request)) {
    done(null, payload);
    return;
  }
  // A stream (a file's content) is read to its end and let go, as Fastify does for a HEAD route.
  if (payload !== null && typeof payload === 'object' && typeof (payload as { resume?: unknown }).resume === 'function') {
    const stream = payload as NodeJS.ReadableStream;
    stream.on('error', (error) => reply.log.warn({ err: error }, 'stream of a tunnelled HEAD answer failed'));
    stream.resume();
  }
  done(null, null);
}
