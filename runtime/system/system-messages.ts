/**
 * The texts clients see from the services the runtime serves itself (system, user, api_docs),
 * each with its status, worded as the reference platform words them where it has a text (clients
 * match the login and session texts: test/unit/runtime/messages.test.ts). The not-found, verb and
 * token texts every family shares are in core/messages.ts; the record texts of the SQL records
 * engine that serves the model-backed resources are in services/sql/sql-messages.ts. A text goes
 * here when clients may match it, when more than one place says it, or when it answers a kind of
 * problem (sessions, passwords, input validation, rate limits); a text explaining one check in one
 * place (a package's shape, a limit's fields) stays beside that check.
 */
import { message } from '../core/errors.js';

const field = (name: string) => ({ field: name });

export const systemMessages = {
  /** A system database statement ran past PORTICO_SYSTEM_STATEMENT_TIMEOUT (waiting on a lock another session holds, mostly). */
  systemStatementTimeout: message(
    503,
    () => 'The system database did not finish the statement within PORTICO_SYSTEM_STATEMENT_TIMEOUT; try again later.',
  ),
  // Logins and sessions (reference 5.8 and 5.9).
  loginMissing: message(400, (name: 'email' | 'password') => `Login request is missing required ${name}.`, field),
  invalidCredentials: message(401, () => 'Invalid credentials supplied.'),
  /** A login whose account's role at the calling app is inactive (reference 6.3). */
  roleNotActive: message(403, () => 'Role is not active.'),
  /** HTTP Basic credentials that match no active account (reference 6.1). */
  basicCredentialsMismatch: message(401, () => 'Unauthorized. User credentials did not match.'),
  noValidSession: message(401, () => 'There is no valid session for the current request.'),
  tokenRefreshFailed: message(401, (reason: string) => `Token refresh failed. ${reason}`),
  notAuthorized: message(401, () => 'You are not authorized to perform this action.'),

  // Passwords and profiles (self-service, registration).
  /** `name`: the field that held the password. */
  passwordMismatch: message(
    400,
    (_name: string) => 'The password supplied does not match.',
    (name: string) => field(name),
  ),
  passwordTooShort: message(
    400,
    (min: number, _name: string) => `Invalid data supplied. The password must be at least ${min} characters.`,
    (_min: number, name: string) => field(name),
  ),
  notAuthorizedForAccount: message(401, (email: string) => `You are not authorized to reset/change password for the account ${email}`),
  emailNotFound: message(404, () => 'The supplied email was not found in the system.'),
  codeNotFound: message(404, () => 'The supplied email and/or confirmation code were not found in the system.'),
  codeExpired: message(
    400,
    () => 'Confirmation code expired.',
    () => field('code'),
  ),
  openRegistrationDisabled: message(403, () => 'Open Registration is not enabled.'),

  // Input validation of system records (record-resources/json-validator.ts; registration).
  unknownField: message(
    400,
    (name: string, what: string) => `Unknown field '${name}' in the ${what}.`,
    (name) => field(name),
  ),
  fieldRequired: message(400, (name: string) => `Field '${name}' is required.`, field),
  wrongType: message(
    400,
    (name: string, types: string) => `Field '${name}' must be of type ${types}.`,
    (name) => field(name),
  ),
  notOneOf: message(
    400,
    (name: string, allowed: readonly unknown[]) => `Field '${name}' must be one of: ${allowed.map((v) => JSON.stringify(v)).join(', ')}.`,
    (name) => field(name),
  ),
  invalidValue: message(400, (name: string) => `Field '${name}' has an invalid value.`, field),
  /** `problem`: the validator's words (`must be >= 0`). */
  fieldProblem: message(
    400,
    (name: string, problem: string) => `Field '${name}' ${problem}.`,
    (name) => field(name),
  ),

  // Resources.
  /** 404 for GET /system/service_type/{name}; a service's `type` names no kind: the same text as a 400 on the field. */
  serviceTypeNotFound: message(404, (type: string) => `Service type '${type}' not found.`),
  serviceTypeDeclaredOnly: message(
    400,
    (type: string) =>
      `Service type '${type}' can only be declared in platform.yaml: its code is compiled with the server by \`gen build\`.`,
    () => ({ field: 'type' }),
  ),
  constantNotFound: message(404, (name: string) => `Constant '${name}' not found.`),
  eventScriptNotFound: message(404, (name: string) => `Event script '${name}' not found.`),
  scriptTypeNotFound: message(404, (name: string) => `Script type '${name}' not found.`),
  noCacheControl: message(501, () => 'Service does not implement API controlled cache.'),
  noDocsAccess: message(403, (service: string) => `You do not have access to API Docs for the requested service ${service}.`),
  cannotDeleteSelf: message(403, () => 'Cannot delete your account.'),
  cannotDeactivateSelf: message(
    403,
    () => 'Cannot deactivate your account.',
    () => field('is_active'),
  ),
  /** A delete or deactivation that would leave no active administrator: nobody could log in to the system API again. */
  lastActiveAdmin: message(
    403,
    (action: 'delete' | 'deactivate') => `Cannot ${action} the last active administrator: at least one administrator must stay active.`,
  ),
  alreadyConfirmed: message(400, () => 'User with this identifier has already confirmed this account.'),

  // Rate limits (reference 6.8; /system/limit).
  /** The reference's text, trailing space included; the context lists the exceeded limits. */
  limitsExceeded: message(429, () => 'API limit(s) exceeded. '),
  limitRateNotInteger: message(
    400,
    () => 'Limit rate must be an integer. Limit not saved.',
    () => field('rate'),
  ),
  limitPeriodInvalid: message(
    400,
    (periods: readonly string[]) => `Limit period must be one of ${periods.join(', ')}. Limit not saved.`,
    () => field('period'),
  ),
  limitVerbInvalid: message(
    400,
    () => 'Verb is invalid or not allowed.',
    () => field('verb'),
  ),
  limitEndpointTooLong: message(
    400,
    (most: number, name: string) => `endpoint is too long for this limit: at most ${most} characters. Limit: ${name}`,
    () => field('endpoint'),
  ),
  /** 400 as the reference answers, whether check or the database (a concurrent create) finds the duplicate. */
  limitExists: message(
    400,
    () => 'A limit already exists with those parameters. No records added.',
    () => field('key_text'),
  ),

  // System mail.
  noMailService: message(
    500,
    (template: string, service: string) =>
      `No email service is configured to send '${template}' (the '${service}' service must be an active email service).`,
  ),
  noMailTemplate: message(500, (template: string) => `Email template '${template}' does not exist.`),
} as const;
