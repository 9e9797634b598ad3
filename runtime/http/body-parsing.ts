/**
 * Request bodies: JSON (with Fastify's prototype-poisoning protection), an empty body as no body,
 * and a body without a JSON content type still read as JSON (clients omit the header). Strings
 * no database stores faithfully (NUL, lone surrogates) are refused here, once for every service.
 */
import type { FastifyInstance } from 'fastify';
import { BadRequestError, InvalidJsonError } from '../core/errors.js';
import { findUnacceptableText } from '../core/request-limits.js';

export function installBodyParsing(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(['application/json', 'text/plain', '*'], { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (error, value) => {
      if (error) {
        done(new InvalidJsonError(), undefined);
        return;
      }
      const bad = findUnacceptableText(value);
      if (bad === null) done(null, value);
      else done(new BadRequestError(`Invalid request body: ${bad.path === '' ? 'it' : `'${bad.path}'`} ${bad.reason}.`, bad.path === '' ? null : { field: bad.path }), undefined);
    });
  });
}
