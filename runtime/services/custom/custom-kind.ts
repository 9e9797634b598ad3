/**
 * The `custom` kind (group Script, the reference's group for its script services): endpoints in
 * the platform's own TypeScript module. The reference's script types (`nodejs`, `python`, `php`,
 * `v8js`) run untyped script text stored in its database; a `custom` service runs a module that
 * `gen build` compiles with the server and tsc checks against the generated types, so it is
 * declared in platform.yaml only (POST /system/service refuses the type).
 *
 * At build time `introspect` loads the module (through the generator's `loadModule`) and puts its
 * routes in the model for the OpenAPI files; when serving, `open` takes the module runServer
 * imported where main.mjs names it (`userModule`).
 */
import { InternalServerError } from '../../core/errors.js';
import type { ServiceKind } from '../service-kind.js';
import { endpointsOpenApi } from './endpoint-routes.js';
import { DEFAULT_ENDPOINT_TIMEOUT_MS, EndpointModuleError, readEndpointSet, sortRoutes } from './endpoints.js';

export const customConfigSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['module'],
  properties: {
    module: {
      type: 'string',
      pattern: '\\.ts$',
      title: 'Module',
      description:
        'The TypeScript module of the endpoints, relative to platform.yaml and outside the generated directory: it default-exports defineEndpoints({ routes }) of portico/runtime.',
    },
    timeout_ms: {
      type: 'integer',
      minimum: 1,
      maximum: 3_600_000,
      title: 'Timeout (ms)',
      description: `How long a handler may take to answer (a streamed answer's body excepted) before the request is answered 503; default ${DEFAULT_ENDPOINT_TIMEOUT_MS}.`,
    },
  },
};

export const customKind: ServiceKind = {
  type: 'custom',
  label: 'Custom Endpoints',
  group: 'Script',
  description: "Route handlers in the platform's own TypeScript module, compiled with the server.",
  configSchema: customConfigSchema,
  declaredOnly: true,
  callsApi: true,
  async introspect(service, ctx) {
    if (!ctx.loadModule) throw new Error('Custom endpoints are read by gen build.');
    const routes = readEndpointSet(await ctx.loadModule(String(service.config.module)));
    // A request schema ajv cannot compile stops the build rather than the first request.
    const bodyCheck = (await import('./request-validation.js')).bodyChecker();
    for (const { model } of routes) if (model.request !== undefined) bodyCheck(model.request, `${model.method} ${model.path}`);
    return { ...service, kind: 'custom', routes: sortRoutes(routes.map((route) => route.model)) };
  },
  describe: (service) => endpointsOpenApi(service.kind === 'custom' ? service.routes : []),
  async open(service, ctx) {
    const exported = ctx.userModule?.(service.name);
    if (exported === undefined) {
      throw new InternalServerError(
        `The endpoints of service '${service.name}' were not compiled with this server: run \`npx gen build\` and start the generated main.mjs.`,
      );
    }
    // The handler (and ajv, for request schemas) loads when a custom service opens.
    const { CustomHandler } = await import('./custom-handler.js');
    try {
      const timeoutMs = typeof service.config.timeout_ms === 'number' ? service.config.timeout_ms : DEFAULT_ENDPOINT_TIMEOUT_MS;
      return new CustomHandler(service.name, readEndpointSet(exported), timeoutMs);
    } catch (error) {
      if (error instanceof EndpointModuleError)
        throw new InternalServerError(`The module of service '${service.name}' cannot serve: ${error.message}.`);
      throw error;
    }
  },
};
