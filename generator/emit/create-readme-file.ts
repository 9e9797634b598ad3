/** `README.md`: what was generated, the services and tables, how to run and regenerate. */
import type { PlatformModel } from '../../runtime/model/platform-model.js';
import { GENERATED_NOTICE } from './generated-notice.js';
import { renderTemplate } from './render-template.js';

/** An output file as the README lists it. */
export interface FileEntry {
  path: string;
  description: string;
}

/** Text safe in a Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ');
}

/** Names of the `${env:NAME}` references anywhere in the model, sorted. */
function environmentNames(model: PlatformModel): string[] {
  const names = [...JSON.stringify(model).matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1]);
  return [...new Set(names)].sort();
}

/** Renders `template` (templates/README.md.hbs) for the platform. */
export function createReadmeFile(model: PlatformModel, files: FileEntry[], platformDirFromOutput: string, template: string): string {
  return renderTemplate(template, {
    notice: GENERATED_NOTICE,
    title: model.platform.title || model.platform.name,
    description: model.platform.description,
    services: model.services.map(({ id, name, type, label }) => ({ id, name, type, label: cell(label) })),
    databases: model.services.flatMap((service) =>
      service.kind === 'sql'
        ? [
            {
              name: service.name,
              dialect: service.dialect,
              tables: service.schema.tables.map((table) => ({
                name: table.name,
                isView: table.isView,
                primaryKey: cell(table.primaryKey.join(', ')) || '-',
                fieldCount: table.fields.length,
                related: cell(table.relations.map((relation) => `\`${relation.name}\``).join(', ')) || '-',
              })),
            },
          ]
        : [],
    ),
    files,
    platformDir: platformDirFromOutput,
    environment: environmentNames(model),
  });
}
