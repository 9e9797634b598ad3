/**
 * The one error catalogue of the runtime: exception classes with the spec's status codes, the
 * spec's error body `{"error":{"code","message","context"?}}`, and `message()`, the form of an
 * entry in a family's catalogue of texts (core/messages.ts, services/sql/sql-messages.ts,
 * services/sql/schema/schema-messages.ts, services/soap/soap-messages.ts, system/system-messages.ts):
 * a text with its status.
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
  constructor(message: string, context: ErrorContext = null) {
    super(400, message, context);
  }
}
export class InvalidJsonError extends PorticoError {
  constructor(message = 'Invalid or malformed JSON.', context: ErrorContext = null) {
    super(400, message, context);
  }
}
/** A multi-record write where some records failed; `context.errors` lists `{index, message}`. */
export class BatchError extends PorticoError {
  constructor(message: string, errors: Array<{ index: number; message: string; code?: number }>, resource: unknown[] = []) {
    super(400, message, { errors, resource });
  }
}
export class UnauthorizedError extends PorticoError {
  constructor(message = 'Unauthorized.', context: ErrorContext = null) {
    super(401, message, context);
  }
}
export class ForbiddenError extends PorticoError {
  constructor(message = 'Forbidden.', context: ErrorContext = null) {
    super(403, message, context);
  }
}
export class NotFoundError extends PorticoError {
  constructor(message = 'Not found.', context: ErrorContext = null) {
    super(404, message, context);
  }
}
export class MethodNotAllowedError extends PorticoError {
  constructor(message: string, context: ErrorContext = null) {
    super(405, message, context);
  }
}
export class ConflictError extends PorticoError {
  constructor(message: string, context: ErrorContext = null) {
    super(409, message, context);
  }
}
/** 412: an `If-Match` precondition names another version of the record. */
export class PreconditionFailedError extends PorticoError {
  constructor(message: string, context: ErrorContext = null) {
    super(412, message, context);
  }
}
/** 417: an `Expect` the server does not meet (anything but 100-continue). */
export class ExpectationFailedError extends PorticoError {
  constructor(message: string, context: ErrorContext = null) {
    super(417, message, context);
  }
}
export class PayloadTooLargeError extends PorticoError {
  constructor(message = 'Request body is too large.') {
    super(413, message);
  }
}
export class UriTooLongError extends PorticoError {
  constructor(message = 'Request URL is too long.') {
    super(414, message);
  }
}
export class UnsupportedMediaTypeError extends PorticoError {
  constructor(message = 'Unsupported content type. Send JSON with Content-Type: application/json.', context: ErrorContext = null) {
    super(415, message, context);
  }
}
export class HeadersTooLargeError extends PorticoError {
  constructor(message = 'Request headers (URL included) are too large.') {
    super(431, message);
  }
}
export class TooManyRequestsError extends PorticoError {
  constructor(message: string, context: ErrorContext = null, headers: Record<string, string> = {}) {
    super(429, message, context);
    this.headers = headers;
  }
}
export class InternalServerError extends PorticoError {
  constructor(message = 'Internal server error.', context: ErrorContext = null) {
    super(500, message, context);
  }
}
export class NotImplementedError extends PorticoError {
  constructor(message: string, context: ErrorContext = null) {
    super(501, message, context);
  }
}
/** 502: a remote back-end (file server, mail server) refused or failed an operation it was up for. */
export class BadGatewayError extends PorticoError {
  constructor(message: string, context: ErrorContext = null) {
    super(502, message, context);
  }
}
export class ServiceUnavailableError extends PorticoError {
  constructor(message: string, context: ErrorContext = null) {
    super(503, message, context);
  }
}

type ErrorClass = new (message: string, context?: ErrorContext) => PorticoError;

/** The class an entry of a given status throws (the spec's exception classes by status). */
const CLASS_OF_STATUS: Readonly<Record<number, ErrorClass>> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  409: ConflictError,
  412: PreconditionFailedError,
  415: UnsupportedMediaTypeError,
  417: ExpectationFailedError,
  429: TooManyRequestsError,
  500: InternalServerError,
  501: NotImplementedError,
  502: BadGatewayError,
  503: ServiceUnavailableError,
};

/**
 * An entry of a family's catalogue: a text clients see and the status it goes out with. `text`
 * gives the words (for a BatchError's message, or a text inside another), `error` the error to
 * throw, with the context the entry derives from the same arguments.
 */
export interface Message<A extends unknown[] = []> {
  readonly status: number;
  readonly text: (...args: A) => string;
  error(...args: A): PorticoError;
}

/** A catalogue entry (as fastify's `createError(code, message, statusCode)`): status, text, and optionally the error's context. */
export function message<A extends unknown[] = []>(
  status: number,
  text: (...args: A) => string,
  context?: (...args: A) => ErrorContext,
): Message<A> {
  const ErrorOfStatus = CLASS_OF_STATUS[status];
  if (ErrorOfStatus === undefined) throw new Error(`No error class for status ${status}.`);
  return {
    status,
    text,
    error: (...args: A) => new ErrorOfStatus(text(...args), context === undefined ? null : context(...args)),
  };
}
