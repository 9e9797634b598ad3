/**
 * Request bodies: JSON (with Fastify's prototype-poisoning protection), an empty body as no body,
 * and a body without a JSON content type still read as JSON (clients omit the header). Strings
 * no database stores faithfully (NUL, lone surrogates) are refused here, once for every service.
 */
import type { FastifyInstance } from 'fastify';
import { InvalidJsonError } from '../core/errors.js';
import { findUnacceptableText } from '../core/request-limits.js';
import { coreMessages } from '../core/messages.js';

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
      else done(coreMessages.invalidBodyText.error(bad.path, bad.reason), undefined);
    });
  });
}
