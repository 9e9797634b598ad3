/**
 * Turns every failure into the spec's error body: PorticoErrors as they are, Fastify's own errors
 * (bad JSON, body too large, schema validation) mapped to 400/413, anything else a 500 whose
 * details stay in the log.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { BadRequestError, InternalServerError, InvalidJsonError, NotFoundError, PayloadTooLargeError, PorticoError } from '../core/errors.js';

export function toPorticoError(error: FastifyError | Error): PorticoError {
  if (error instanceof PorticoError) return error;
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new InvalidJsonError();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new BadRequestError(`Unsupported content type. Send JSON with Content-Type: application/json.`);
  }
  if (fastifyError.validation) {
    const first = fastifyError.validation[0];
    const field = first?.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : (first?.params as { missingProperty?: string })?.missingProperty ?? '';
    return new BadRequestError(`Invalid request: ${field ? `'${field}' ` : ''}${first?.message ?? 'does not match the schema'}.`, field ? { field } : null);
  }
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new PorticoError(fastifyError.statusCode, fastifyError.message);
  }
  return new InternalServerError();
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const portico = toPorticoError(error);
    if (portico.status >= 500 && !(error instanceof PorticoError)) request.log.error({ err: error }, 'unhandled error');
    void reply.status(portico.status).send(portico.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new NotFoundError(`No route for ${request.method} ${request.url.split('?')[0]}.`);
    void reply.status(404).send(error.toBody());
  });
}
