/** Renders the handlebars templates of /templates (whole-file text only), compiled strict and without HTML escaping. */
import { readFileSync } from 'node:fs';
import Handlebars from 'handlebars';

const compiled = new Map<string, HandlebarsTemplateDelegate>();

/** Renders `templates/<name>` with `data`; a name the data lacks is an error (strict mode). */
export function renderTemplate(name: string, data: object): string {
  let template = compiled.get(name);
  if (template === undefined) {
    const source = readFileSync(new URL(`../../templates/${name}`, import.meta.url), 'utf8');
    template = Handlebars.compile(source, { strict: true, noEscape: true });
    compiled.set(name, template);
  }
  return template(data);
}
