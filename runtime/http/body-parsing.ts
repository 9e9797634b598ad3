/**
 * Request bodies: JSON (with Fastify's prototype-poisoning protection), an empty body as no body,
 * and a body without a JSON content type still read as JSON (clients omit the header).
 */
import type { FastifyInstance } from 'fastify';
import { InvalidJsonError } from '../core/errors.js';

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
      if (error) done(new InvalidJsonError(), undefined);
      else done(null, value);
    });
  });
}
