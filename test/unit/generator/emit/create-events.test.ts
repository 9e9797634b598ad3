import { describe, expect, it } from 'vitest';
import { createEventsFile } from '#generator/emit/create-events.js';
import { createTypesFile } from '#generator/emit/create-types-file.js';
import type { SqlServiceModel } from '#runtime/model/platform-model.js';
import { plain, platform } from '#test/golden/fixtures/model-builders.js';
import { awkwardRoutinesModel as routinesModel } from './awkward-model.js';

describe('the Events of a database service', () => {
  const pg = routinesModel.services.find((service): service is SqlServiceModel => service.name === 'pg')!;
  const text = createTypesFile(pg);

  it.each([
    [
      'a read: no records before, the records after',
      '"pg._table.contact.get.pre_process": [];',
      '"pg._table.contact.get.post_process": Contact[];',
    ],
    [
      'a create: the inserts before, what was written after',
      '"pg._table.contact.post.pre_process": ContactInsert[];',
      '"pg._table.contact.post.post_process": Array<Partial<Contact>>;',
    ],
    [
      'an update of one record',
      '"pg._table.contact.{id}.patch.pre_process": ContactUpdate[];',
      '"pg._table.contact.{id}.delete.pre_process": [];',
    ],
    [
      'a routine called by POST: its request',
      '"pg._proc.bump.post.pre_process": RoutineRequest;',
      '"pg._func.add_numbers.post.post_process": unknown;',
    ],
    [
      'a routine called by GET: nothing (its arguments are in the query)',
      '"pg._func.add_numbers.get.pre_process": undefined;',
      '"pg.get.post_process": unknown;',
    ],
  ])('types %s', (_, first, second) => {
    expect(text).toContain(first);
    expect(text).toContain(second);
  });

  it('imports RoutineRequest from portico/runtime only where there are routines', () => {
    expect(text).toContain('import type { RoutineRequest } from "portico/runtime";');
    const sqlite = routinesModel.services.find((service): service is SqlServiceModel => service.name === 'my_db')!;
    expect(createTypesFile(sqlite)).not.toMatch(/^import /m);
  });

  it('gives a view read events only', () => {
    const sqlite = createTypesFile(routinesModel.services.find((service): service is SqlServiceModel => service.name === 'my_db')!);
    expect(sqlite).toContain('"my_db._table.odd_view.get.post_process": OddView[];');
    expect(sqlite).not.toContain('"my_db._table.odd_view.post.');
  });
});

describe('events.ts', () => {
  const services = [
    plain(1, 'system', 'System', 'system', ''),
    plain(2, 'members', 'Members', 'user', ''),
    plain(3, 'mail', 'Mail', 'local_email', ''),
    plain(4, 'cache', 'Cache', 'cache_redis', ''),
  ];

  it("combines the services' Events with those of the other services, named by portico/runtime", () => {
    const text = createEventsFile(platform('p', [...services, ...routinesModel.services.filter((service) => service.kind === 'sql')]));
    expect(text).toContain(
      'import type { Events as MyDbEvents, TableInserts as MyDbTableInserts, TableUpdates as MyDbTableUpdates, Tables as MyDbTables } from "./services/my_db/types.js";',
    );
    expect(text).toContain(
      'import type { Events as PgEvents, TableInserts as PgTableInserts, TableUpdates as PgTableUpdates, Tables as PgTables } from "./services/pg/types.js";',
    );
    expect(text).toContain('import type { ApiTables, EndpointEvents, InternalServiceEvents } from "portico/runtime";');
    // The databases' own first; a service of the runtime's own types by its type and name; the others by the paths of their documents.
    expect(text).toMatch(
      /export type Events = MyDbEvents &\n {2}PgEvents &\n {2}\w+Events &\n {2}InternalServiceEvents<"system", "system"> &\n {2}InternalServiceEvents<"user", "members"> &\n {2}EndpointEvents<"mail", "post"> &\n {2}EndpointEvents<"cache", "get" \| /,
    );
    // The database services' tables for the in-process API.
    expect(text).toMatch(
      /export type Api = ApiTables<"my_db", MyDbTables, MyDbTableInserts, MyDbTableUpdates> & ApiTables<"pg", PgTables, /,
    );
  });

  it('imports only the runtime types it names', () => {
    const text = createEventsFile(platform('p', [services[0]]));
    expect(text).toContain('import type { ApiTables, InternalServiceEvents } from "portico/runtime";');
    expect(text).toContain('export type Events = InternalServiceEvents<"system", "system">;');
    expect(text).toContain('export type Api = Record<never, never>;');
  });

  it('keeps the names of the runtime types free of the aliases of services', () => {
    const endpointService = routinesModel.services.find((service): service is SqlServiceModel => service.name === 'my_db')!;
    const text = createEventsFile(platform('p', [{ ...endpointService, name: 'endpoint' }, services[0]]));
    expect(text).toContain('import type { Events as EndpointEvents2,');
  });
});
