/**
 * Portico's own Handlebars templates (templates/), read once by the pipeline and handed to the
 * emit stage, which does no I/O.
 */
import { readFileSync } from 'node:fs';
import type { Templates } from './emit/emit-platform.js';

let loaded: Templates | undefined;

/** The templates, read on first use. */
export function loadTemplates(): Templates {
  const read = (name: string) => readFileSync(new URL(`../templates/${name}`, import.meta.url), 'utf8');
  loaded ??= { readme: read('README.md.hbs'), prismaSchema: read('schema.prisma.hbs') };
  return loaded;
}
