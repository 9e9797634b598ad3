/**
 * Calls one operation: JSON -> envelope -> HTTP -> JSON. The SOAP version is the configured one,
 * else the binding's (1.1 when both exist), and the soapAction that version's binding's; the endpoint is `options.location`, else the WSDL's
 * address for that version (of a port that offers the operation). A Fault is a 500 with its text
 * and code; a binding that uses WS-Addressing gets its headers (soap-envelope.ts); an HTTP error without an envelope is a 503 for a gateway status (502-504) and a 500
 * otherwise; no answer is a 503.
 */
import { type PorticoError, ServiceUnavailableError } from '../../../core/errors.js';
import type { RawQuery } from '../../../core/query-params.js';
import type { SoapOperationModel, SoapServiceModel, SoapVersion } from '../../../model/platform-model.js';
import type { RequestWriter } from './request-xml.js';
import { faultError, parseEnvelope, type ResponseReader } from './response-json.js';
import type { SoapOptions } from '../soap-config.js';
import { addressingHeaders, envelope, envelopeHeaders, soapHeaders } from './soap-envelope.js';
import type { SoapTransport } from './soap-transport.js';
import { soapMessages } from '../soap-messages.js';

export interface InvokerParts {
  service: Pick<SoapServiceModel, 'endpoints'>;
  options: SoapOptions;
  transport: SoapTransport;
  writer: RequestWriter;
  reader: ResponseReader;
}

function versionOf(operation: SoapOperationModel, options: SoapOptions): SoapVersion {
  return (
    options.soapVersion ??
    (operation.soapVersions.includes('1.1') || operation.soapVersions.length === 0 ? '1.1' : operation.soapVersions[0])
  );
}

function httpError(status: number): PorticoError {
  const gateway = status >= 502 && status <= 504;
  return gateway
    ? new ServiceUnavailableError(soapMessages.httpWithoutEnvelope.text(status))
    : soapMessages.httpWithoutEnvelope.error(status);
}

/** Calls `operation` with the JSON `args`; `query` feeds `svc:` header values. */
export async function invokeOperation(
  parts: InvokerParts,
  operation: SoapOperationModel,
  args: unknown,
  query: RawQuery,
): Promise<Record<string, unknown>> {
  const { service, options, transport, writer, reader } = parts;
  const version = versionOf(operation, options);
  const endpoint =
    options.location ??
    operation.endpoints?.[version] ??
    service.endpoints[version] ??
    operation.endpoints?.['1.1'] ??
    operation.endpoints?.['1.2'] ??
    service.endpoints['1.1'] ??
    service.endpoints['1.2'];
  if (endpoint === undefined) throw soapMessages.noEndpoint.error(version);
  if (!/^https?:\/\/[^/]/i.test(endpoint)) throw soapMessages.endpointNotUrl.error(endpoint, version);
  const body = writer.message(operation.input, args, operation.use === 'encoded' ? version : null);
  const addressing = operation.addressing?.[version];
  const headers =
    soapHeaders(options.headers, options.wsse, version, query) +
    (addressing === undefined ? '' : addressingHeaders(addressing, endpoint, operation.output !== null, version, options.headers));
  const request = envelope(version, headers, body, operation.use === 'encoded');
  const reply = await transport.exchange(
    endpoint,
    request,
    envelopeHeaders(version, operation.soapActions?.[version] ?? operation.soapAction),
  );
  // Nothing is the answer of a one-way operation only; a redirect is no answer either (a SOAP
  // POST is not sent again elsewhere: soap-transport.ts).
  if (reply.body.trim() === '') {
    if (reply.status >= 300 || operation.output !== null) throw httpError(reply.status);
    return {};
  }
  let root: Element;
  try {
    root = parseEnvelope(reply.body);
  } catch (error) {
    if (reply.status >= 300) throw httpError(reply.status);
    throw error;
  }
  const result = reader.read(root, operation.output, operation.faultDetail);
  if ('fault' in result) throw faultError(result.fault);
  if (reply.status >= 400) throw httpError(reply.status);
  return result.value;
}
