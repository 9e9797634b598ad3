/**
 * The normalised options of a `soap` service's config (its JSON Schema: ./soap-config-schema.ts).
 * The reference platform's PHP constant names (`SOAP_1_2`, `WSDL_CACHE_NONE`) are accepted beside
 * plain values. Options that would turn off TLS certificate verification are refused here again:
 * a `stream_context` given as JSON text escapes the schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BadRequestError } from '../../core/errors.js';
import type { SoapVersion } from '../../model/platform-model.js';
import { XML_NAME } from './soap-config-schema.js';

/** A generic SOAP header row. `data` is an object, a text, or `{param}` for a query parameter. */
export interface GenericHeader {
  namespace: string;
  name: string;
  data: unknown;
  mustUnderstand: boolean;
  actor: string | null;
}

export interface WsseHeader {
  username: string;
  password: string;
  /** wsu:Id of the UsernameToken, or null. */
  tokenId: string | null;
  passwordType: 'PasswordDigest' | 'PasswordText';
}

export interface TlsOptions {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  passphrase?: string;
  servername?: string;
}

export interface SoapOptions {
  /** Forced SOAP version, or null for the binding's (1.1 when both exist). */
  soapVersion: SoapVersion | null;
  /** Endpoint override. */
  location: string | null;
  basicAuth: { username: string; password: string } | null;
  ntlm: { username: string; password: string; domain: string; workstation: string } | null;
  /** Keep the WSDL read at run time (false: read it for every call). */
  cacheWsdl: boolean;
  /** Connection timeout (default 60 s, as PHP's socket timeout). */
  timeoutMs: number;
  tls: TlsOptions | null;
  /** Extra HTTP headers (stream_context http.header and user_agent). */
  httpHeaders: Record<string, string>;
  headers: GenericHeader[];
  wsse: WsseHeader | null;
  /** Milliseconds GET results are cached, or null when they are not. */
  responseTtlMs: number | null;
}

const DEFAULT_TIMEOUT_SECONDS = 60;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The reference's prefix for values taken from the request's query parameters. */
export const QUERY_VALUE_PREFIX = 'svc:';

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function optionalString(value: unknown, where: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' && typeof value !== 'number') throw new BadRequestError(`SOAP option '${where}' must be a string.`);
  return String(value);
}

function soapVersion(value: unknown): SoapVersion | null {
  if (value === undefined || value === null || value === '') return null;
  const normalised = String(value).replace(/^SOAP_1_/, '1.');
  if (normalised === '1.1' || normalised === '1.2') return normalised;
  throw new BadRequestError(`SOAP option 'soap_version' must be 1.1 or 1.2, not '${String(value)}'.`);
}

function cacheWsdl(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  const text = String(value).toLowerCase();
  if (['none', 'wsdl_cache_none', '0'].includes(text)) return false;
  if (['memory', 'wsdl_cache_disk', 'wsdl_cache_memory', 'wsdl_cache_both', '1', '2', '3'].includes(text)) return true;
  throw new BadRequestError(`SOAP option 'cache_wsdl' must be memory or none, not '${String(value)}'.`);
}

const INSECURE: Array<[string, unknown, string]> = [
  ['verify_peer', false, 'turns off TLS certificate verification'],
  ['verify_peer_name', false, 'turns off TLS host name verification'],
  ['allow_self_signed', true, 'accepts self-signed certificates'],
];

function readPem(file: unknown, where: string, baseDir: string): Buffer | undefined {
  const name = optionalString(file, `stream_context.ssl.${where}`);
  if (name === null) return undefined;
  try {
    return fs.readFileSync(path.resolve(baseDir, name));
  } catch {
    throw new BadRequestError(`SOAP option 'stream_context.ssl.${where}': cannot read '${name}'.`);
  }
}

function streamContext(value: unknown, baseDir: string): Pick<SoapOptions, 'tls' | 'httpHeaders'> {
  let context = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return { tls: null, httpHeaders: {} };
    try {
      context = JSON.parse(value);
    } catch {
      throw new BadRequestError("SOAP option 'stream_context' is not valid JSON.");
    }
  }
  if (context === undefined || context === null) return { tls: null, httpHeaders: {} };
  const { ssl, http, ...others } = record(context);
  const unknown = Object.keys(others);
  if (unknown.length > 0) throw new BadRequestError(`SOAP option 'stream_context' has unknown key '${unknown[0]}'; use ssl or http.`);
  const sslOptions = record(ssl);
  for (const [key, insecureValue, effect] of INSECURE) {
    if (key in sslOptions && sslOptions[key] === insecureValue) {
      throw new BadRequestError(
        `SOAP option 'stream_context.ssl.${key}: ${String(insecureValue)}' ${effect}; this is not allowed. Trust a private certificate authority with 'ssl.cafile' instead.`,
      );
    }
  }
  const tls: TlsOptions = {
    ca: readPem(sslOptions.cafile, 'cafile', baseDir),
    cert: readPem(sslOptions.local_cert, 'local_cert', baseDir),
    key: readPem(sslOptions.local_pk, 'local_pk', baseDir) ?? readPem(sslOptions.local_cert, 'local_cert', baseDir),
    passphrase: optionalString(sslOptions.passphrase, 'stream_context.ssl.passphrase') ?? undefined,
    servername: optionalString(sslOptions.peer_name, 'stream_context.ssl.peer_name') ?? undefined,
  };
  const httpOptions = record(http);
  const httpHeaders: Record<string, string> = {};
  const lines = Array.isArray(httpOptions.header) ? httpOptions.header : String(httpOptions.header ?? '').split(/\r?\n/);
  for (const line of lines.map(String)) {
    const colon = line.indexOf(':');
    if (line.trim() === '') continue;
    if (colon <= 0) throw new BadRequestError(`SOAP option 'stream_context.http.header': '${line}' is not a 'Name: value' line.`);
    httpHeaders[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  const userAgent = optionalString(httpOptions.user_agent, 'stream_context.http.user_agent');
  if (userAgent !== null) httpHeaders['User-Agent'] = userAgent;
  const hasTls = Object.values(tls).some((member) => member !== undefined);
  return { tls: hasTls ? tls : null, httpHeaders };
}

/** Header rows with lower-cased keys (the reference stores them lower-case; forms show them capitalised). */
function headerRows(value: unknown): Array<Record<string, unknown>> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new BadRequestError("SOAP config 'headers' must be a list of header rows.");
  return value.map((row) => Object.fromEntries(Object.entries(record(row)).map(([key, member]) => [key.toLowerCase(), member])));
}

/** A header's data: a query reference, a JSON object (or its text), or a plain text. */
function headerData(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? '';
  if (value.startsWith(QUERY_VALUE_PREFIX)) return value;
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' ? parsed : value;
  } catch {
    return value;
  }
}

function flag(value: unknown): boolean {
  return value === true || value === 1 || (typeof value === 'string' && ['1', 'true', 'yes'].includes(value.toLowerCase()));
}

function headers(config: Record<string, unknown>): Pick<SoapOptions, 'headers' | 'wsse'> {
  const generic: GenericHeader[] = [];
  const wsse: Record<string, string> = {};
  headerRows(config.headers).forEach((row, index) => {
    const type = String(row.type ?? 'generic').toLowerCase();
    const name = typeof row.name === 'string' ? row.name : '';
    if (type === 'wsse') {
      const which = name.toLowerCase();
      if (which !== 'username' && which !== 'password')
        throw new BadRequestError(`SOAP header ${index}: a wsse row is named 'username' or 'password', not '${name}'.`);
      wsse[which] = String(row.data ?? '');
    } else if (type === 'generic') {
      const namespace = typeof row.namespace === 'string' ? row.namespace : '';
      if (namespace === '' || name === '') throw new BadRequestError(`SOAP header ${index} needs 'namespace' and 'name'.`);
      if (!new RegExp(XML_NAME).test(name)) throw new BadRequestError(`SOAP header ${index}: '${name}' is not an XML element name.`);
      generic.push({
        namespace,
        name,
        data: headerData(row.data),
        mustUnderstand: flag(row.mustunderstand),
        actor: optionalString(row.actor, `headers[${index}].actor`),
      });
    } else {
      throw new BadRequestError(`SOAP header ${index}: type must be generic or wsse, not '${type}'.`);
    }
  });
  const hasWsse = 'username' in wsse || 'password' in wsse;
  if (hasWsse && !('username' in wsse && 'password' in wsse))
    throw new BadRequestError('A WS-Security header needs two wsse rows: username and password.');
  return {
    headers: generic,
    wsse: hasWsse
      ? {
          username: wsse.username,
          password: wsse.password,
          tokenId: optionalString(config.wsse_username_token, 'wsse_username_token'),
          passwordType: config.wsse_password_type === 'PasswordText' ? 'PasswordText' : 'PasswordDigest',
        }
      : null,
  };
}

/** Normalised options of a (resolved) config; a bad value is a BadRequestError naming it. */
export function soapOptions(config: Record<string, unknown>, baseDir: string): SoapOptions {
  const options = record(config.options);
  const login = optionalString(options.login, 'login');
  const ntlmUser = optionalString(options.ntlm_username, 'ntlm_username');
  const timeout = options.connection_timeout === undefined || options.connection_timeout === '' ? null : Number(options.connection_timeout);
  if (timeout !== null && !(timeout > 0))
    throw new BadRequestError("SOAP option 'connection_timeout' must be a number of seconds above 0.");
  const location = optionalString(options.location, 'location');
  if (location !== null && !/^https?:\/\//i.test(location))
    throw new BadRequestError(`SOAP option 'location' must be an http(s) URL, not '${location}'.`);
  const ttl = Number(config.cache_ttl ?? 300);
  return {
    soapVersion: soapVersion(options.soap_version),
    location,
    basicAuth: login === null ? null : { username: login, password: optionalString(options.password, 'password') ?? '' },
    ntlm:
      ntlmUser === null
        ? null
        : {
            username: ntlmUser,
            password: optionalString(options.ntlm_password, 'ntlm_password') ?? '',
            domain: optionalString(options.ntlm_domain, 'ntlm_domain') ?? '',
            workstation: optionalString(options.ntlm_workstation, 'ntlm_workstation') ?? '',
          },
    cacheWsdl: cacheWsdl(options.cache_wsdl),
    // Node's timers hold at most 2^31 - 1 ms (24.8 days); a longer one would fire at once.
    timeoutMs: Math.min(Math.round((timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000), MAX_TIMER_MS),
    ...streamContext(options.stream_context, baseDir),
    ...headers(config),
    responseTtlMs: flag(config.cache_enabled) && Number.isFinite(ttl) && ttl > 0 ? ttl * 1000 : null,
  };
}
