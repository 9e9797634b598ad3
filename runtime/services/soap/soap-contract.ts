/**
 * Reading a SOAP service's WSDL into its model (build-time introspection, and at run time for
 * services created through the API, refresh=true and cache_wsdl none), and the live form of a
 * model the handler serves from: operations by lower-cased name, and the JSON <-> XML mappers.
 */
import type { ServiceModel, SoapOperationModel, SoapServiceModel } from '../../model/platform-model.js';
import { sharedComponents } from '../../openapi/shared-components.js';
import { SchemaView } from './wsdl/json-schema-view.js';
import { RequestWriter } from './call/request-xml.js';
import { ResponseReader } from './call/response-json.js';
import { describeOperations } from './wsdl/soap-introspection.js';
import type { SoapTransport } from './call/soap-transport.js';
import { loadWsdlDocuments } from './wsdl/wsdl-loader.js';
import { readWsdl } from './wsdl/wsdl-reader.js';
import { resolveWsdlLocation } from './wsdl/wsdl-source.js';
import { operationsByApiName, operationsByExactName } from './operation-names.js';
import { soapMessages } from './soap-messages.js';

/** Definition names the shared OpenAPI components already use. */
const RESERVED_NAMES = Object.keys(sharedComponents().schemas ?? {});

/** The declared `config.wsdl` (environment references unresolved), as the model keeps it. */
export function declaredWsdl(service: ServiceModel): string {
  return typeof service.config.wsdl === 'string' ? service.config.wsdl : '';
}

/**
 * Reads the WSDL named by `wsdl` (the resolved config value) and returns the service's model.
 * Problems are PorticoErrors: a missing file or an unusable document 500, an unreachable host 503.
 */
export async function readSoapModel(
  service: ServiceModel,
  wsdl: unknown,
  baseDir: string,
  transport: SoapTransport,
): Promise<SoapServiceModel> {
  const location = resolveWsdlLocation(wsdl, baseDir, service.origin);
  const documents = await loadWsdlDocuments(location, transport);
  let contract: ReturnType<typeof describeOperations>;
  try {
    contract = describeOperations(readWsdl(documents), RESERVED_NAMES);
  } catch (error) {
    // Types are read recursively: a chain of types thousands long (each extending, restricting
    // or including the next) is no schema anyone writes, and must not crash the build.
    if (error instanceof RangeError && /call stack/i.test(error.message)) throw soapMessages.wsdlTooDeep.error(documents[0].label, null);
    throw error;
  }
  const { id, name, label, type, description, is_active, config, origin } = service;
  return { id, name, label, type, description, is_active, config, origin, kind: 'soap', wsdl: declaredWsdl(service), ...contract };
}

/** A model as the handler serves it. */
export class LiveContract {
  readonly operations: ReadonlyMap<string, SoapOperationModel>;
  private readonly exact: ReadonlyMap<string, SoapOperationModel>;
  readonly view: SchemaView;
  readonly writer: RequestWriter;
  readonly reader: ResponseReader;

  constructor(readonly model: SoapServiceModel) {
    this.operations = operationsByApiName(model.operations);
    this.exact = operationsByExactName(model.operations);
    this.view = new SchemaView(model.definitions);
    this.writer = new RequestWriter(this.view, model.derivedTypes ?? {});
    this.reader = new ResponseReader(this.view, model.derivedTypes ?? {});
  }

  /** The operation of an API name (WSDL or documented): the one spelt so, else ignoring case. */
  operation(name: string): SoapOperationModel | undefined {
    return this.exact.get(name) ?? this.operations.get(name.toLowerCase());
  }
}
