/**
 * The endpoints of the runtime's own service types that portico/runtime types (service-events.ts)
 * are those of their OpenAPI documents, which name the events the runtime fires and GET
 * /system/event lists: a path or verb added to a document without the list fails here.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { HookPhase } from '#runtime/http/hook-events.js';
import {
  documentedEndpoints,
  INTERNAL_SERVICE_PATHS,
  type EndpointEvents,
  type InternalServiceEvents,
} from '#runtime/http/service-events.js';
import { internalServiceFragment } from '#runtime/openapi/model-fragment.js';
import { internalServiceTypes } from '#runtime/system/internal-service-types.js';

describe('INTERNAL_SERVICE_PATHS', () => {
  it('has every one of the runtime’s own service types', () => {
    expect(Object.keys(INTERNAL_SERVICE_PATHS).sort()).toEqual(internalServiceTypes.map((type) => type.type).sort());
  });

  it.each(Object.entries(INTERNAL_SERVICE_PATHS))('lists the paths and verbs of the %s document', (type, paths) => {
    const listed = Object.entries<readonly string[]>(paths).flatMap(([path, verbs]) =>
      verbs.map((verb) => (path === '' ? verb : `${path}.${verb}`)),
    );
    expect(listed.sort()).toEqual(documentedEndpoints(internalServiceFragment(type)!.paths).sort());
  });
});

describe('documentedEndpoints', () => {
  it('names each path and verb of a document as its events do, by path, then verb', () => {
    expect(
      documentedEndpoints({
        '/orders/{id}': { delete: {}, get: {}, parameters: [] },
        '/': { post: {} },
        '/order%20lines': { get: {} },
      }),
    ).toEqual(['post', 'order lines.get', 'orders.{id}.get', 'orders.{id}.delete']);
  });
});

describe('the event types', () => {
  it('name both phases of each endpoint of a service, by the name given', () => {
    type Session = 'get' | 'post' | 'put' | 'delete';
    type UserEndpoint = 'get' | 'password.post' | `profile.${'get' | 'post' | 'put' | 'patch'}` | 'register.post' | `session.${Session}`;
    expectTypeOf<keyof InternalServiceEvents<'user', 'members'>>().toEqualTypeOf<`members.${UserEndpoint}.${HookPhase}`>();
    expectTypeOf<InternalServiceEvents<'swagger', 'api_docs'>>().toEqualTypeOf<{
      'api_docs.get.pre_process': unknown;
      'api_docs.get.post_process': unknown;
      'api_docs.{service}.get.pre_process': unknown;
      'api_docs.{service}.get.post_process': unknown;
    }>();
    expectTypeOf<keyof EndpointEvents<'stats', 'contacts.get'>>().toEqualTypeOf<
      'stats.contacts.get.pre_process' | 'stats.contacts.get.post_process'
    >();
  });
});
