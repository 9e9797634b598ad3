/** `main.ts`: starts the server with the frozen model and the route schemas of each database service. */
import { StructureKind } from 'ts-morph';
import type { PlatformModel } from '../../runtime/model/platform-model.js';
import { camelCase, uniqueNamer } from '../../runtime/openapi/names.js';
import { blankLine, printTypeScript, RUNTIME_SPECIFIER } from './typescript-printer.js';

/** `..` -> `../`: the platform directory as a URL relative to main.ts. */
function directoryUrl(path: string): string {
  return path.endsWith('/') ? path : `${path}/`;
}

export function createMainFile(model: PlatformModel, platformDirFromOutput: string): string {
  const name = uniqueNamer(['runServer']);
  const services = model.services
    .filter((service) => service.kind === 'sql')
    .map((service) => ({ service: service.name, alias: name(`${camelCase(service.name) || 'service'}Routes`) }));
  return printTypeScript([
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: RUNTIME_SPECIFIER, namedImports: ['runServer'] },
    ...services.map(({ service, alias }) => ({
      kind: StructureKind.ImportDeclaration as const,
      moduleSpecifier: `./services/${service}/routes.js`,
      namedImports: [{ name: 'routes', alias }],
    })),
    blankLine,
    (writer) => {
      writer.write('await runServer(').inlineBlock(() => {
        writer.writeLine(`modelUrl: new URL(${JSON.stringify('./model.json')}, import.meta.url),`);
        writer.writeLine(`baseUrl: new URL(${JSON.stringify(directoryUrl(platformDirFromOutput))}, import.meta.url),`);
        writer.writeLine(`routes: [${services.map(({ alias }) => alias).join(', ')}],`);
      }).write(');');
    },
  ]);
}
