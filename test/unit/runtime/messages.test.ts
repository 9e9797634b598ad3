/**
 * The runtime's catalogues of texts (issue 18 point 5): the texts real clients of the reference
 * platform match, pinned against the reference's wording (shared/reference/dreamfactory-reference.md,
 * shared/spec/service-spec.md) with their statuses; every entry's error carries its entry's status
 * and text; and a text without arguments is written once, in its catalogue.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidJsonError, type Message, PorticoError } from '#runtime/core/errors.js';
import { coreMessages } from '#runtime/core/messages.js';
import { soapMessages } from '#runtime/services/soap/soap-messages.js';
import { schemaMessages } from '#runtime/services/sql/schema/schema-messages.js';
import { sqlMessages } from '#runtime/services/sql/sql-messages.js';
import { systemMessages } from '#runtime/system/system-messages.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

const CATALOGUES: Record<string, Record<string, Message<any[]>>> = {
  'runtime/core/messages.ts': coreMessages,
  'runtime/services/sql/sql-messages.ts': sqlMessages,
  'runtime/services/sql/schema/schema-messages.ts': schemaMessages,
  'runtime/services/soap/soap-messages.ts': soapMessages,
  'runtime/system/system-messages.ts': systemMessages,
};

interface Pinned {
  entry: Message<any[]>;
  args: unknown[];
  status: number;
  /** What clients match: the reference's words (its start where Portico's text goes on differently). */
  reference: string;
  /** Portico's whole text. */
  text: string;
}

const pin = (entry: Message<any[]>, args: unknown[], status: number, reference: string, text = reference): Pinned => ({
  entry,
  args,
  status,
  reference,
  text,
});

/** Reference 6.7, 5.8-5.9 and the spec's "Authentication failure messages". The reference's X-DreamFactory-* headers are the spec's X-Service-*. */
const AUTHENTICATION: Record<string, Pinned> = {
  'no credentials': pin(
    coreMessages.noCredentials,
    [],
    401,
    'No session token or API Key detected in request.',
    'No session token or API Key detected in request. Please send in X-Service-Session-Token and/or X-Service-API-Key request header. You can also use URL query parameters session_token and/or api_key.',
  ),
  'no API key': pin(
    coreMessages.noApiKey,
    [],
    401,
    'No API Key provided. Please provide a valid API Key using X-',
    "No API Key provided. Please provide a valid API Key using X-Service-API-Key request header or 'api_key' url query parameter.",
  ),
  'no session token': pin(
    coreMessages.noSessionToken,
    [],
    401,
    'No session token (JWT) provided. Please provide a valid ',
    "No session token (JWT) provided. Please provide a valid session token using X-Service-Session-Token request header or 'session_token' url query parameter.",
  ),
  'role not found': pin(coreMessages.roleNotFound, [], 403, 'Role not found. A role may not be assigned to you or your application.'),
  'role inactive': pin(
    coreMessages.roleInactive,
    [],
    403,
    'Access Forbidden. The role assigned to you or your application or the default role of your application is not active.',
  ),
  'access forbidden': pin(
    coreMessages.accessForbidden,
    ['GET', "component '_table/contact' of service 'db'"],
    403,
    "Access Forbidden. GET access to component '_table/contact' of service 'db' is not allowed by this user's role.",
  ),
  'user verification failed': pin(coreMessages.tokenUserUnknown, [], 401, 'Invalid token: User verification failed.'),
  'token expired': pin(
    coreMessages.tokenExpired,
    [],
    401,
    'Token has expired: Session expired. Please ',
    'Token has expired: Session expired. Please re-login.',
  ),
  'login without email': pin(systemMessages.loginMissing, ['email'], 400, 'Login request is missing required email.'),
  'invalid credentials': pin(systemMessages.invalidCredentials, [], 401, 'Invalid credentials supplied.'),
  'login: role inactive': pin(systemMessages.roleNotActive, [], 403, 'Role is not active.'),
  'basic credentials': pin(systemMessages.basicCredentialsMismatch, [], 401, 'Unauthorized. User credentials did not match.'),
  'no valid session': pin(systemMessages.noValidSession, [], 401, 'There is no valid session for the current request.'),
  'not authorized': pin(systemMessages.notAuthorized, [], 401, 'You are not authorized to perform this action.'),
  'password mismatch': pin(systemMessages.passwordMismatch, ['old_password'], 400, 'The password supplied does not match.'),
  'reset for the other kind of account': pin(
    systemMessages.notAuthorizedForAccount,
    ['a@b.c'],
    401,
    'You are not authorized to reset/change password for the account a@b.c',
  ),
  'reset: unknown email': pin(systemMessages.emailNotFound, [], 404, 'The supplied email was not found in the system.'),
  'reset: unknown code': pin(
    systemMessages.codeNotFound,
    [],
    404,
    'The supplied email and/or confirmation code were not found in the system.',
  ),
  'reset: code expired': pin(systemMessages.codeExpired, [], 400, 'Confirmation code expired.'),
  'registration closed': pin(systemMessages.openRegistrationDisabled, [], 403, 'Open Registration is not enabled.'),
  'short password': pin(
    systemMessages.passwordTooShort,
    [16, 'password'],
    400,
    'Invalid data supplied. The password must be at least 16 characters.',
  ),
};

/** Reference 1-3 and 7.2: records, tables, schema, routines, services. */
const DATA: Record<string, Pinned> = {
  'service not found': pin(coreMessages.serviceNotFound, ['nope'], 404, 'Could not find a service for nope'),
  'service deactivated': pin(coreMessages.serviceDeactivated, ['db'], 403, 'Service db is deactivated.'),
  'resource not found': pin(coreMessages.resourceNotFound, ['_nope', 'db'], 404, "Resource '_nope' not found for service 'db'."),
  'table not found': pin(coreMessages.tableNotFound, ['nope'], 404, 'Table "nope" does not exist in the database.'),
  'record not found': pin(coreMessages.recordNotFound, ['7'], 404, "Record with identifier '7' not found."),
  'no records': pin(
    coreMessages.noRecords,
    [],
    400,
    "No record(s) detected in request. Please make sure record(s) are wrapped in a 'resource' tag.",
    `No record(s) detected in request. Please make sure record(s) are wrapped in a 'resource' tag. Example: {"resource":[{"record":1},{"record":2}]}`,
  ),
  'invalid field': pin(sqlMessages.invalidField, ['nope'], 400, 'Invalid field requested: nope'),
  'invalid order field': pin(sqlMessages.invalidOrderField, ['nope'], 400, "Invalid field 'nope' in order by clause."),
  'invalid group field': pin(sqlMessages.invalidGroupField, ['nope'], 400, "Invalid or unknown field 'nope' in group by clause."),
  'invalid filter field': pin(sqlMessages.unknownFilterField, ['nope', 3], 400, "Invalid or unparsable field in filter request: 'nope'"),
  'batch (create)': pin(sqlMessages.batch, ['create', false], 400, 'Batch Error: Not all requested records could be created.'),
  'batch (retrieve)': pin(sqlMessages.batch, ['retrieve', false], 400, 'Batch Error: Not all requested records could be retrieved.'),
  'create by id': pin(sqlMessages.createById, [], 400, 'Create record by identifier not currently supported.'),
  'delete without criteria': pin(sqlMessages.noDeleteCriteria, [], 400, 'No filter or records given for delete request.'),
  'no valid fields': pin(sqlMessages.noFields, [], 400, 'No valid fields were found in record.'),
  'not null': pin(sqlMessages.notNull, ['name'], 400, "Field 'name' can not be NULL."),
  'required id fields': pin(sqlMessages.idFieldsMissing, [0, ['id']], 400, 'Required id field(s) not found in record 0: id.'),
  'multi-column relation': pin(
    sqlMessages.multiColumnRelation,
    [],
    501,
    'Relating records with multi-column foreign keys is not currently supported.',
  ),
  'schema: no data': pin(schemaMessages.noSchemaData, ['create'], 400, 'No data in schema create request.'),
  'schema: no table name': pin(schemaMessages.tableNameMissing, [], 400, 'Table schema received does not have a valid name.'),
  'schema: table exists': pin(schemaMessages.alreadyExists, ['table', 't'], 409, "A table with name 't' already exist in the database."),
  'schema: field exists': pin(schemaMessages.fieldExists, ['f', 't'], 400, "Field 'f' already exists in table 't'."),
  'schema: table to drop': pin(schemaMessages.tableToDropNotFound, ['t'], 404, "Table 't' not found."),
  'schema: table not created': pin(schemaMessages.schemaChangeFailed, ['create', 't'], 400, "Failed to create table 't'."),
  'schema: tables not created': pin(schemaMessages.schemaChangeFailed, ['create', null], 400, 'Failed to create tables.'),
  'schema: table not updated': pin(schemaMessages.schemaChangeFailed, ['update', 't'], 400, "Failed to update table 't'."),
  'procedure not found': pin(sqlMessages.routineNotFound, ['Procedure', 'p'], 404, "Procedure 'p' does not exist in the database."),
  'SOAP operation not found': pin(soapMessages.operationNotFound, ['Add'], 404, "Function 'Add' does not exist on this service."),
  'service type not found': pin(systemMessages.serviceTypeNotFound, ['x'], 404, "Service type 'x' not found."),
  'no API cache': pin(systemMessages.noCacheControl, [], 501, 'Service does not implement API controlled cache.'),
  'self-deletion': pin(systemMessages.cannotDeleteSelf, [], 403, 'Cannot delete your account.'),
};

/** Reference 6.8 and 5.11: rate limits. */
const LIMITS: Record<string, Pinned> = {
  'limits exceeded (trailing space)': pin(systemMessages.limitsExceeded, [], 429, 'API limit(s) exceeded. '),
  'limit rate': pin(systemMessages.limitRateNotInteger, [], 400, 'Limit rate must be an integer. Limit not saved.'),
  'limit verb': pin(systemMessages.limitVerbInvalid, [], 400, 'Verb is invalid or not allowed.'),
  'limit exists': pin(systemMessages.limitExists, [], 400, 'A limit already exists with those parameters. No records added.'),
};

describe.each([
  ['authentication', AUTHENTICATION],
  ['data', DATA],
  ['limits', LIMITS],
])('texts clients match (%s)', (_group, pinned) => {
  it.each(Object.entries(pinned))('%s', (_name, { entry, args, status, reference, text }) => {
    expect(entry.text(...args)).toBe(text);
    expect(text.startsWith(reference)).toBe(true);
    expect(entry.status).toBe(status);
    const error = entry.error(...args);
    expect(error).toBeInstanceOf(PorticoError);
    expect(error.toBody().error).toMatchObject({ code: status, message: text });
  });
});

describe("the classes' own texts", () => {
  it("a malformed body is the reference's InvalidJson", () => {
    expect(new InvalidJsonError().toBody()).toEqual({ error: { code: 400, message: 'Invalid or malformed JSON.' } });
  });
});

describe('catalogue entries', () => {
  const entries = Object.entries(CATALOGUES).flatMap(([file, catalogue]) =>
    Object.entries(catalogue).map(([name, entry]) => ({ file, name, entry })),
  );

  it.each(entries.map(({ file, name, entry }) => [`${path.basename(file, '.ts')}.${name}`, entry]))(
    '%s throws its own status',
    (_name, entry) => {
      expect([400, 401, 403, 404, 405, 409, 412, 415, 417, 429, 500, 501, 503]).toContain(entry.status);
      if (entry.text.length > 0) return;
      const error = entry.error();
      expect(error.status).toBe(entry.status);
      expect(error.message).toBe(entry.text());
    },
  );

  it('carry the context their entry derives: the field named', () => {
    expect(sqlMessages.invalidField.error('nope').context).toEqual({ field: 'nope' });
    expect(sqlMessages.unknownFilterField.error('nope', 3).context).toEqual({ field: 'nope', position: 3 });
    expect(sqlMessages.invalidValueOfType.error('n', 'integer').context).toEqual({ field: 'n' });
    expect(coreMessages.parameterNotInteger.error('limit').context).toEqual({ parameter: 'limit' });
  });

  /** A text without arguments, written in more than one runtime file, would say the same thing twice. */
  it('write each text without arguments once, in its catalogue', () => {
    const sources = new Map<string, string>();
    const walk = (dir: string): void => {
      for (const item of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const relative = path.posix.join(dir, item.name);
        if (item.isDirectory()) walk(relative);
        else if (item.name.endsWith('.ts')) sources.set(relative, fs.readFileSync(path.join(ROOT, relative), 'utf8'));
      }
    };
    walk('runtime');
    const written = (text: string) => [`'${text.replace(/'/g, "\\'")}'`, `"${text}"`, `\`${text}\``];
    const repeated: string[] = [];
    for (const { file, name, entry } of entries) {
      if (entry.text.length > 0) continue;
      const text = entry.text();
      const files = [...sources].filter(([, source]) => written(text).some((literal) => source.includes(literal))).map(([where]) => where);
      if (files.length !== 1 || files[0] !== file) repeated.push(`${name}: ${files.join(', ')}`);
    }
    expect(repeated).toEqual([]);
  });
});
