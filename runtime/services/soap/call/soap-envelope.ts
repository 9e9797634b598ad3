/**
 * The request envelope of either SOAP version, its HTTP headers, and the configured SOAP headers:
 * generic ones (a JSON object as child elements, a text, or `svc:<param>` values taken from the
 * request's query) and the WS-Security UsernameToken (PasswordDigest = base64(SHA-1(nonce +
 * created + password)) with a fresh 16-byte nonce per request, or PasswordText), and the
 * WS-Addressing headers of a binding that uses WS-Addressing.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { RawQuery } from '../../../core/query-params.js';
import type { SoapAddressingModel, SoapVersion } from '../../../model/platform-model.js';
import { QUERY_VALUE_PREFIX, type GenericHeader, type WsseHeader } from '../soap-config.js';
import { SOAP11_ENVELOPE_NS, SOAP12_ENVELOPE_NS } from './response-json.js';
import { escapeXml, XSI_NS, XSD_NS } from '../xml-dom.js';
import { xmlText } from './request-xml.js';

const WSSE_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const TOKEN_PROFILE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0';
const BASE64_ENCODING = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';
const ENCODING: Record<SoapVersion, string> = {
  '1.1': 'http://schemas.xmlsoap.org/soap/encoding/',
  '1.2': 'http://www.w3.org/2003/05/soap-encoding',
};

/**
 * The envelope; the `soap` prefix is bound to the version's namespace. An encoded SOAP 1.1 body
 * says so on the Envelope; SOAP 1.2 forbids encodingStyle there (PHP's SoapServer answers
 * env:Sender), so the request writer puts it on the body's elements instead.
 */
export function envelope(version: SoapVersion, header: string, body: string, encoded: boolean): string {
  const ns = version === '1.2' ? SOAP12_ENVELOPE_NS : SOAP11_ENVELOPE_NS;
  const encoding = encoded && version === '1.1' ? ` soap:encodingStyle="${ENCODING[version]}"` : '';
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ns}" xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}"${encoding}>` +
    (header === '' ? '' : `<soap:Header>${header}</soap:Header>`) +
    `<soap:Body>${body}</soap:Body></soap:Envelope>`
  );
}

/**
 * The action as an HTTP header can carry it: a URI, so characters beyond ASCII (an IRI such as
 * `urn:操作`, which Node.js refuses in a header) and quotes are percent-encoded as UTF-8.
 */
function headerAction(soapAction: string): string {
  return soapAction.replace(/[^\x20-\x7E]|"/gu, (character) => {
    try {
      return encodeURIComponent(character);
    } catch {
      // A lone surrogate: no character at all.
      return '';
    }
  });
}

/** HTTP headers of a call: 1.1 sends SOAPAction, 1.2 puts the action in the content type. */
export function envelopeHeaders(version: SoapVersion, soapAction: string): Record<string, string> {
  const action = headerAction(soapAction);
  if (version === '1.2') return { 'Content-Type': `application/soap+xml; charset=utf-8; action="${action}"` };
  return { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${action}"` };
}

function queryValue(query: RawQuery, name: string): string {
  const value = query[name];
  return Array.isArray(value) ? (value[value.length - 1] ?? '') : (value ?? '');
}

/** Header content: objects as child elements in the header's namespace, `svc:<param>` texts from the query. */
function content(data: unknown, query: RawQuery): string {
  if (data === null || data === undefined) return '';
  if (typeof data === 'string') {
    if (!data.startsWith(QUERY_VALUE_PREFIX)) return escapeXml(data);
    const parameter = data.slice(QUERY_VALUE_PREFIX.length);
    return xmlText(queryValue(query, parameter), parameter);
  }
  if (typeof data !== 'object') return escapeXml(String(data));
  return Object.entries(data as Record<string, unknown>)
    .filter(([key]) => /^[A-Za-z_][\w.-]*$/.test(key))
    .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((item) => `<${key}>${content(item, query)}</${key}>`))
    .join('');
}

function genericHeader(header: GenericHeader, version: SoapVersion, query: RawQuery): string {
  let attributes = ` xmlns="${escapeXml(header.namespace)}"`;
  if (header.mustUnderstand) attributes += ` soap:mustUnderstand="${version === '1.2' ? 'true' : '1'}"`;
  if (header.actor !== null) attributes += ` soap:${version === '1.2' ? 'role' : 'actor'}="${escapeXml(header.actor)}"`;
  return `<${header.name}${attributes}>${content(header.data, query)}</${header.name}>`;
}

/** `YYYY-MM-DDTHH:MM:SSZ`, as the UsernameToken profile's examples and most servers expect. */
function created(now: Date): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}

/** base64(SHA-1(nonce bytes + created + password)): the UsernameToken profile's PasswordDigest. */
export function passwordDigest(nonce: Buffer, createdAt: string, password: string): string {
  return createHash('sha1')
    .update(Buffer.concat([nonce, Buffer.from(createdAt, 'utf8'), Buffer.from(password, 'utf8')]))
    .digest('base64');
}

function wsseHeader(wsse: WsseHeader, version: SoapVersion, now: Date): string {
  const nonce = randomBytes(16);
  const createdAt = created(now);
  const password = wsse.passwordType === 'PasswordDigest' ? passwordDigest(nonce, createdAt, wsse.password) : wsse.password;
  const id = wsse.tokenId === null ? '' : ` wsu:Id="${escapeXml(wsse.tokenId)}"`;
  return (
    `<wsse:Security xmlns:wsse="${WSSE_NS}" xmlns:wsu="${WSU_NS}" soap:mustUnderstand="${version === '1.2' ? 'true' : '1'}">` +
    `<wsse:UsernameToken${id}>` +
    `<wsse:Username>${escapeXml(wsse.username)}</wsse:Username>` +
    `<wsse:Password Type="${TOKEN_PROFILE}#${wsse.passwordType}">${escapeXml(password)}</wsse:Password>` +
    `<wsse:Nonce EncodingType="${BASE64_ENCODING}">${nonce.toString('base64')}</wsse:Nonce>` +
    `<wsu:Created>${createdAt}</wsu:Created>` +
    '</wsse:UsernameToken></wsse:Security>'
  );
}

/** WS-Addressing's anonymous address (ReplyTo: the answer comes back on the HTTP response), by namespace. */
const ANONYMOUS: Record<string, string> = {
  'http://schemas.xmlsoap.org/ws/2004/08/addressing': 'http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous',
};

/**
 * The WS-Addressing headers of a request: Action, a fresh MessageID, ReplyTo (anonymous) when an
 * answer is expected, and To (the endpoint), Action and To marked mustUnderstand when the binding
 * requires WS-Addressing. A header of the same name the configuration sends already is not repeated.
 */
export function addressingHeaders(
  addressing: SoapAddressingModel,
  endpoint: string,
  answered: boolean,
  version: SoapVersion,
  configured: readonly GenericHeader[],
): string {
  const ns = addressing.namespace;
  const must = addressing.required ? ` soap:mustUnderstand="${version === '1.2' ? 'true' : '1'}"` : '';
  const own = new Set(configured.filter((header) => header.namespace === ns).map((header) => header.name));
  const header = (name: string, content: string, mark = '') =>
    own.has(name) ? '' : `<wsa:${name} xmlns:wsa="${escapeXml(ns)}"${mark}>${content}</wsa:${name}>`;
  const anonymous = ANONYMOUS[ns] ?? `${ns}/anonymous`;
  return (
    header('Action', escapeXml(addressing.action), must) +
    header('MessageID', `urn:uuid:${randomUUID()}`) +
    (answered ? header('ReplyTo', `<wsa:Address>${escapeXml(anonymous)}</wsa:Address>`) : '') +
    header('To', escapeXml(endpoint), must)
  );
}

/** The content of soap:Header for one request. */
export function soapHeaders(
  headers: readonly GenericHeader[],
  wsse: WsseHeader | null,
  version: SoapVersion,
  query: RawQuery,
  now = new Date(),
): string {
  return headers.map((header) => genericHeader(header, version, query)).join('') + (wsse === null ? '' : wsseHeader(wsse, version, now));
}
