/** `services/<name>/routes.ts`: the precompiled JSON Schemas of each table's routes, as literal data. */
import { StructureKind, VariableDeclarationKind } from 'ts-morph';
import type { SqlServiceModel } from '../../runtime/model/platform-model.js';
import { canonicalJson } from '../../runtime/openapi/canonical-json.js';
import { tableRouteSchemas } from '../../runtime/openapi/record-schemas.js';
import { blankLine, printTypeScript, RUNTIME_SPECIFIER } from './typescript-printer.js';

export function createRoutesFile(service: SqlServiceModel): string {
  const routes = {
    service: service.name,
    tables: Object.fromEntries(service.schema.tables.map((table) => [table.name, tableRouteSchemas(table)])),
  };
  return printTypeScript([
    { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: RUNTIME_SPECIFIER, namedImports: ['ServiceRoutes'] },
    blankLine,
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      docs: [`Route schemas of the \`${service.name}\` service's tables.`],
      declarationKind: VariableDeclarationKind.Const,
      declarations: [{ name: 'routes', type: 'ServiceRoutes', initializer: (writer) => { writer.write(canonicalJson(routes)); } }],
    },
  ]);
}
