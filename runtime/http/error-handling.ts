/**
 * Turns every failure into the spec's error body `{"error":{"code","message"}}`: PorticoErrors as
 * they are; Fastify's own errors (bad JSON, body too large, bad percent-encoding, over-long path
 * parameters, schema validation) mapped to their 4xx; requests Node's HTTP parser refuses before
 * Fastify sees them (over-large headers, malformed request lines) answered in the same shape on
 * the socket; anything else a 500 whose details stay in the log.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import {
  HeadersTooLargeError,
  InternalServerError,
  InvalidJsonError,
  PayloadTooLargeError,
  PorticoError,
  UnsupportedMediaTypeError,
  UriTooLongError,
} from '../core/errors.js';
import { credentialHeaderProblem } from '../auth/credentials.js';
import { coreMessages } from '../core/messages.js';
import { answersHeadersOnly, sendHeadersOnly } from './head-override.js';
import { systemDatabaseUnavailable } from '../system/store/system-db.js';

export function toPorticoError(error: FastifyError | Error): PorticoError {
  if (error instanceof PorticoError) return sendable(error);
  // A hook or endpoint may throw anything: `undefined`, a string, a plain object.
  if (typeof error !== 'object' || error === null) return withCause(new InternalServerError(), error);
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new InvalidJsonError();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new UnsupportedMediaTypeError();
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return coreMessages.contentLengthMismatch.error();
    case 'FST_ERR_BAD_URL':
      return coreMessages.badPercentEncoding.error();
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new UriTooLongError('A segment of the request path is too long.');
  }
  if (fastifyError.validation) {
    const first = fastifyError.validation[0];
    const field = first?.instancePath
      ? first.instancePath.replace(/^\//, '').replace(/\//g, '.')
      : ((first?.params as { missingProperty?: string })?.missingProperty ?? '');
    return coreMessages.invalidRequest.error(field, first?.message ?? 'does not match the schema');
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500)
    return new PorticoError(status, `${http.STATUS_CODES[status] ?? 'Bad request'}.`);
  return new InternalServerError();
}

function withCause(error: PorticoError, cause: unknown): PorticoError {
  error.cause = cause;
  return error;
}

/**
 * A PorticoError as it can go out: one a hook or endpoint built with a status that is no error
 * status (200, 99) is a 500, and one whose context JSON cannot hold (a cycle, a BigInt) keeps its
 * status and message without it (the answer would otherwise fail in Fastify's own shape).
 */
function sendable(error: PorticoError): PorticoError {
  if (!Number.isInteger(error.status) || error.status < 400 || error.status > 599) return withCause(new InternalServerError(), error);
  if (error.context === null) return error;
  try {
    JSON.stringify(error.context);
    return error;
  } catch {
    const bare = withCause(new PorticoError(error.status, error.message), error);
    bare.headers = error.headers;
    return bare;
  }
}

function send(reply: FastifyReply, error: PorticoError): FastifyReply {
  return reply.status(error.status).headers(error.headers).send(error.toBody());
}

/** Fastify's `frameworkErrors` option: errors raised while routing, before any hook or handler. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void send(reply, toPorticoError(error));
}

/** What Node's HTTP parser refused, as a PorticoError (431 for over-large headers, else 400). */
function clientError(error: Error & { code?: string }): PorticoError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new HeadersTooLargeError();
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new PorticoError(408, 'The request took too long to arrive.');
  return coreMessages.malformedHttp.error();
}

/** Writes an error answer straight on a socket (before or outside Fastify) and closes it. */
function answerOnSocket(socket: Socket, portico: PorticoError, isHead: boolean, headers = ''): void {
  const body = JSON.stringify(portico.toBody());
  socket.end(
    `HTTP/1.1 ${portico.status} ${http.STATUS_CODES[portico.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${isHead ? '' : body}`,
  );
}

/** Fastify's `clientErrorHandler` option: answers a request Node could not parse, in the spec's shape, and closes the socket. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    // The answer to a HEAD has no body (RFC 9110 9.3.2): clients read the error's JSON as a next answer, and failed on it.
    const head = (error as { rawPacket?: unknown }).rawPacket;
    const isHead = Buffer.isBuffer(head) && head.subarray(0, 5).toString('latin1') === 'HEAD ';
    answerOnSocket(socket, clientError(error), isHead);
  }
  socket.destroy(error);
}

/**
 * What Node's HTTP server answers itself, with an empty body or none, in the spec's shape instead:
 * a CONNECT (no listener: the socket was closed unanswered) and an Expect other than 100-continue
 * (an empty 417). A missing Host is refused by missingHostRefusal, Node's own check being off.
 */
function installServerAnswers(server: http.Server): void {
  server.on('connect', (_request: http.IncomingMessage, socket: Socket) => {
    answerOnSocket(socket, coreMessages.invalidVerb.error('CONNECT'), false, `Allow: ${[...ROUTED_METHODS].join(', ')}\r\n`);
  });
  server.on('checkExpectation', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const body = JSON.stringify(coreMessages.expectationFailed.error(request.headers.expect ?? '').toBody());
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
}

/** Node's `requireHostHeader`, off so that this answers in the spec's shape (Node's 400 had no body): HTTP/1.1 needs a Host (RFC 9112 3.2). */
export function missingHostRefusal(request: FastifyRequest): Error | null {
  return request.raw.httpVersion === '1.1' && request.headers.host === undefined ? coreMessages.missingHost.error() : null;
}

/**
 * A 400 for a credential header sent more than once, or with its alias at a different value (the
 * spec's shape, naming them), before any credential is read.
 */
export function repeatedCredentialRefusal(request: FastifyRequest): Error | null {
  const problem = credentialHeaderProblem(request.headers, request.raw.rawHeaders);
  if (problem === null) return null;
  return 'repeated' in problem
    ? coreMessages.repeatedCredentialHeader.error(problem.repeated)
    : coreMessages.conflictingCredentialHeaders.error(...problem.conflicting);
}

/** Headers that describe an answer's body: not the error's, which replaces it. */
const CONTENT_HEADERS = ['content-type', 'content-length', 'content-range', 'content-disposition', 'content-encoding', 'last-modified'];

/**
 * Removes what a streamed answer that failed before its first byte (a file the server then would
 * not read) had said about its body: Fastify keeps those headers, and the error's JSON under a
 * `text/plain` type was its own 500 (FST_ERR_REP_INVALID_PAYLOAD_TYPE) instead of our answer.
 */
function dropContentHeaders(reply: FastifyReply): void {
  for (const name of CONTENT_HEADERS) if (reply.hasHeader(name)) reply.removeHeader(name);
}

/**
 * Removes the headers Node.js would refuse to write (a line break or a character beyond Latin-1 in
 * a value): when one of them was the failure, the error answer would fail on it again and reach
 * the client in Fastify's own shape, with Node's message.
 */
function dropUnsendableHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    try {
      http.validateHeaderName(name);
      for (const item of [value ?? []].flat()) http.validateHeaderValue(name, String(item));
    } catch {
      reply.removeHeader(name);
    }
  }
}

/**
 * The PorticoError an error is answered with (the system database's failures are 503s, as the
 * spec says), logged when it is a 5xx. Routes answering in another shape (MCP's JSON-RPC) use it too.
 */
export function errorAnswer(error: FastifyError | Error, request: FastifyRequest, systemDb?: Kysely<any>): PorticoError {
  const unavailable = systemDb === undefined || error instanceof PorticoError ? null : systemDatabaseUnavailable(systemDb, error);
  const portico = unavailable ?? toPorticoError(error);
  // Driver errors reach the log as the cause of the PorticoError that hides them from the client.
  if (portico.status >= 500) request.log.error({ err: portico.cause ?? error }, portico.message);
  return portico;
}

/** Methods the API's routes take. */
const ROUTED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * `systemDb`: the platform's system database, whose failures (logins, sessions, keys) no service
 * translates: a 503, as the spec says. `allowedAt`: the methods a path takes (options-route.ts),
 * null where no route serves it.
 */
export function installErrorHandling(
  app: FastifyInstance,
  systemDb?: Kysely<any>,
  allowedAt: (url: string) => string[] | null = () => null,
): void {
  installServerAnswers(app.server);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const portico = errorAnswer(error, request, systemDb);
    dropUnsendableHeaders(reply);
    dropContentHeaders(reply);
    // A POST tunnelled as HEAD is refused with headers only, as it is answered (head-override.ts).
    if (answersHeadersOnly(request)) void sendHeadersOnly(reply.status(portico.status).headers(portico.headers), portico.toBody());
    else void send(reply, portico);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A method no route takes (TRACE, PROPFIND, ...) is refused as such, in the spec's envelope.
    // Under /api/v2 with the methods the path takes (as OPTIONS names them); elsewhere no route, as for DELETE /health.
    if (!ROUTED_METHODS.has(request.method)) {
      let allowed: string[] | null;
      try {
        allowed = allowedAt(request.url);
      } catch (error) {
        void send(reply, toPorticoError(error as Error));
        return;
      }
      if (allowed !== null) {
        reply.header('allow', allowed.join(', '));
        void send(reply, coreMessages.invalidVerb.error(request.method));
        return;
      }
    }
    void send(reply, coreMessages.noRoute.error(request.method, path));
  });
}
