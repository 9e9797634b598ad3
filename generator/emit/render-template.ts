/** Renders Handlebars templates (whole-file text only), compiled strict and without HTML escaping. */
import Handlebars from 'handlebars';

const compiled = new Map<string, HandlebarsTemplateDelegate>();

/** Renders the template text `source` with `data`; a name the data lacks is an error (strict mode). */
export function renderTemplate(source: string, data: object): string {
  let template = compiled.get(source);
  if (template === undefined) {
    template = Handlebars.compile(source, { strict: true, noEscape: true });
    compiled.set(source, template);
  }
  return template(data);
}
