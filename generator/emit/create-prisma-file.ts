/**
 * `prisma/<name>.prisma` per SQL service: rendered from templates/schema.prisma.hbs, then laid
 * out by Prisma's own formatter (aligned columns), in-process through prisma-schema-wasm.
 */
import { format } from '@prisma/prisma-schema-wasm';
import type { SqlServiceModel } from '../../runtime/model/platform-model.js';
import { LINE_COMMENT_NOTICE } from './generated-notice.js';
import { prismaSchemaView } from './prisma-schema-view.js';
import { renderTemplate } from './render-template.js';

const FORMAT_PARAMS = JSON.stringify({ textDocument: { uri: 'file:/schema.prisma' }, options: { tabSize: 2, insertSpaces: true } });

/** Prisma's formatter takes and returns the schema as `[[path, text]]` file pairs. */
function formatPrisma(text: string): string {
  const [[, formatted]] = JSON.parse(format(JSON.stringify([['schema.prisma', text]]), FORMAT_PARAMS)) as Array<[string, string]>;
  return formatted;
}

/** Renders `template` (templates/schema.prisma.hbs) for the service. */
export function createPrismaFile(service: SqlServiceModel, template: string): string {
  const text = renderTemplate(template, { notice: LINE_COMMENT_NOTICE, service: service.name, ...prismaSchemaView(service) });
  return formatPrisma(text);
}
