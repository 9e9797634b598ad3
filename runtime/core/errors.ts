/**
 * The one error catalogue of the runtime: exception classes with the spec's status codes, and
 * the spec's error body `{"error":{"code","message","context"?}}`.
 * Throw these anywhere; the HTTP layer turns them into responses.
 */

export type ErrorContext = Record<string, unknown> | unknown[] | null;

export class PorticoError extends Error {
  readonly status: number;
  readonly context: ErrorContext;
  /** Response headers the error comes with (Retry-After and X-RateLimit-* on a 429). */
  headers: Record<string, string> = {};
  constructor(status: number, message: string, context: ErrorContext = null) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.context = context;
  }
  /** The spec's error body. */
  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.status, message: this.message };
    if (this.context !== null) error.context = this.context;
    return { error };
  }
}

export interface ErrorBody {
  error: { code: number; message: string; context?: ErrorContext };
}

export class BadRequestError extends PorticoError {
  constructor(message: string, context: ErrorContext = null) { super(400, message, context); }
}
export class InvalidJsonError extends PorticoError {
  constructor(message = 'Invalid or malformed JSON.', context: ErrorContext = null) { super(400, message, context); }
}
/** A multi-record write where some records failed; `context.errors` lists `{index, message}`. */
export class BatchError extends PorticoError {
  constructor(message: string, errors: Array<{ index: number; message: string; code?: number }>, resource: unknown[] = []) {
    super(400, message, { errors, resource });
  }
}
export class UnauthorizedError extends PorticoError {
  constructor(message = 'Unauthorized.', context: ErrorContext = null) { super(401, message, context); }
}
export class ForbiddenError extends PorticoError {
  constructor(message = 'Forbidden.', context: ErrorContext = null) { super(403, message, context); }
}
export class NotFoundError extends PorticoError {
  constructor(message = 'Not found.', context: ErrorContext = null) { super(404, message, context); }
}
export class MethodNotAllowedError extends PorticoError {
  constructor(message: string) { super(405, message); }
}
export class ConflictError extends PorticoError {
  constructor(message: string, context: ErrorContext = null) { super(409, message, context); }
}
/** 412: an `If-Match` precondition names another version of the record. */
export class PreconditionFailedError extends PorticoError {
  constructor(message: string) {
    super(412, message);
  }
}
export class PayloadTooLargeError extends PorticoError {
  constructor(message = 'Request body is too large.') { super(413, message); }
}
export class UriTooLongError extends PorticoError {
  constructor(message = 'Request URL is too long.') { super(414, message); }
}
export class UnsupportedMediaTypeError extends PorticoError {
  constructor(message = 'Unsupported content type. Send JSON with Content-Type: application/json.') { super(415, message); }
}
export class HeadersTooLargeError extends PorticoError {
  constructor(message = 'Request headers (URL included) are too large.') { super(431, message); }
}
export class TooManyRequestsError extends PorticoError {
  constructor(message = 'API limit(s) exceeded.', context: ErrorContext = null, headers: Record<string, string> = {}) {
    super(429, message, context);
    this.headers = headers;
  }
}
export class InternalServerError extends PorticoError {
  constructor(message = 'Internal server error.', context: ErrorContext = null) { super(500, message, context); }
}
export class NotImplementedError extends PorticoError {
  constructor(message: string) { super(501, message); }
}
export class ServiceUnavailableError extends PorticoError {
  constructor(message: string) { super(503, message); }
}

/** Not-found texts the clients of the reference platform know. */
export const messages = {
  serviceNotFound: (name: string) => `Could not find a service for ${name}`,
  resourceNotFound: (resource: string, service: string) => `Resource '${resource}' not found for service '${service}'.`,
  tableNotFound: (table: string) => `Table "${table}" does not exist in the database.`,
  recordNotFound: (id: string) => `Record with identifier '${id}' not found.`,
  verbNotSupported: (verb: string, resource: string, service: string) =>
    resource === ''
      ? `${verb} requests without a resource are not currently supported by the '${service}' service.`
      : `${verb} requests for resource '${resource}' are not currently supported by the '${service}' service.`,
  noRecords: () =>
    `No record(s) detected in request. Please make sure record(s) are wrapped in a 'resource' tag. Example: {"resource":[{"record":1},{"record":2}]}`,
} as const;
