/**
 * Reads the WSDL 1.1 structure of loaded documents: messages, port types, bindings (with their
 * SOAP version, style, soapAction and soap:body details), services and ports, and the schemas.
 * Pure reading: what is missing or unusable is judged by the introspection.
 */
import type { SoapVersion } from '../../../model/platform-model.js';
import { schemaElements, type WsdlDocument } from './wsdl-loader.js';
import { XsdIndex } from './xsd-index.js';
import { attribute, childElements, ownText, qnameKey, resolveQName, type QName } from '../xml-dom.js';

const SOAP_BINDING_NS: Record<string, SoapVersion> = {
  'http://schemas.xmlsoap.org/wsdl/soap/': '1.1',
  'http://schemas.xmlsoap.org/wsdl/soap12/': '1.2',
};

const HTTP_BINDING_NS = 'http://schemas.xmlsoap.org/wsdl/http/';

export type Style = 'document' | 'rpc';

export interface PartDef {
  name: string;
  element: QName | null;
  type: QName | null;
  /** The part element, for resolving names in the scope of its document. */
  node: Element;
}

export interface MessageDef {
  name: QName;
  parts: PartDef[];
}

export interface PortTypeOperation {
  name: string;
  documentation: string;
  input: QName | null;
  output: QName | null;
  /** Its output comes before its input: a solicit-response operation, which the service starts. */
  solicit: boolean;
  /** The messages of its declared faults (wsdl:fault), in order. */
  faults: QName[];
  /** The input's action as the WSDL states it (wsam:Action, wsaw:Action, wsa:Action), or null. */
  action: string | null;
  /** The input's action by WS-Addressing's default pattern (target namespace, port type, input name). */
  defaultAction: string;
}

/** That a binding uses WS-Addressing: the namespace of the headers, and whether it is required or optional. */
export interface AddressingDef {
  namespace: string;
  required: boolean;
}

export interface BodyDef {
  use: 'literal' | 'encoded';
  /** soap:body namespace (the rpc wrapper's namespace), or ''. */
  namespace: string;
  /** soap:body parts, or null for all of the message's parts. */
  parts: string[] | null;
  /** Parts of the same message sent as SOAP headers, which the body leaves out. */
  headerParts: Array<{ message: QName; part: string }>;
}

export interface BindingOperation {
  name: string;
  soapAction: string;
  style: Style | null;
  input: BodyDef | null;
  output: BodyDef | null;
}

export interface BindingDef {
  name: QName;
  portType: QName | null;
  /** null for a binding that is not SOAP. */
  version: SoapVersion | null;
  /** An HTTP GET/POST binding (.asmx WSDLs have them beside the SOAP ones). */
  isHttp: boolean;
  style: Style;
  operations: BindingOperation[];
  /** WS-Addressing, when the binding or a policy it references says it uses it. */
  addressing: AddressingDef | null;
}

export interface PortDef {
  name: string;
  binding: QName | null;
  address: string | null;
}

export interface ServiceDef {
  name: string;
  ports: PortDef[];
}

export interface WsdlDescription {
  /** targetNamespace of the main WSDL document. */
  targetNamespace: string;
  schemas: XsdIndex;
  messages: Map<string, MessageDef>;
  portTypes: Map<string, Map<string, PortTypeOperation>>;
  bindings: Map<string, BindingDef>;
  services: ServiceDef[];
  /** Operations a port type declares more than once (overloads): only the first is read. */
  overloads: Array<{ portType: string; operation: string }>;
}

/** WSDL children of a node: in the namespace of the document's root (see WsdlDocument). */
const wsdlChildren = (node: Element, local: string) =>
  childElements(node).filter(
    (child) => child.localName === local && child.namespaceURI === node.ownerDocument?.documentElement?.namespaceURI,
  );

function qnameAttribute(node: Element, name: string): QName | null {
  const value = attribute(node, name);
  return value === undefined || value.trim() === '' ? null : resolveQName(node, value);
}

function documentation(node: Element): string {
  return wsdlChildren(node, 'documentation')
    .map((doc) => ownText(doc).replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join(' ');
}

/**
 * The SOAP version of a binding extension element: by its namespace, or (as node-soap reads such
 * WSDLs, seen in the wild) by its prefix when the document never declares it (`soap:` is 1.1, `soap12:` 1.2).
 */
function soapVersionOf(element: Element): SoapVersion | undefined {
  if (element.namespaceURI) return SOAP_BINDING_NS[element.namespaceURI];
  return UNDECLARED_SOAP_PREFIXES[element.prefix ?? ''];
}

const UNDECLARED_SOAP_PREFIXES: Record<string, SoapVersion> = { soap: '1.1', soap12: '1.2' };

/** The SOAP extension child of a binding element (`soap:operation`, `soap12:body`, ...), with its version. */
function soapChild(node: Element, local: string): { element: Element; version: SoapVersion } | undefined {
  for (const child of childElements(node)) {
    const version = soapVersionOf(child);
    if (version !== undefined && child.localName === local) return { element: child, version };
  }
  return undefined;
}

function styleOf(value: string | undefined): Style | null {
  return value === 'rpc' ? 'rpc' : value === 'document' ? 'document' : null;
}

function bodyDef(node: Element | undefined): BodyDef | null {
  if (node === undefined) return null;
  const body = soapChild(node, 'body')?.element;
  const parts = body === undefined ? undefined : attribute(body, 'parts');
  return {
    use: body !== undefined && attribute(body, 'use') === 'encoded' ? 'encoded' : 'literal',
    namespace: (body === undefined ? undefined : attribute(body, 'namespace')) ?? '',
    parts: parts === undefined ? null : parts.split(/\s+/).filter(Boolean),
    headerParts: childElements(node)
      .filter((child) => child.localName === 'header' && soapVersionOf(child) !== undefined)
      .flatMap((header) => {
        const message = qnameAttribute(header, 'message');
        const part = attribute(header, 'part');
        return message !== null && part !== undefined ? [{ message, part }] : [];
      }),
  };
}

export const ADDRESSING_10_NS = 'http://www.w3.org/2005/08/addressing';
export const ADDRESSING_2004_NS = 'http://schemas.xmlsoap.org/ws/2004/08/addressing';
const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/';

/** The namespaces of the attribute that states an input's action. */
const ACTION_NAMESPACES = new Set([
  'http://www.w3.org/2007/05/addressing/metadata',
  'http://www.w3.org/2006/05/addressing/wsdl',
  'http://www.w3.org/2006/02/addressing/wsdl',
  ADDRESSING_10_NS,
  ADDRESSING_2004_NS,
]);

/** The elements saying that a binding uses WS-Addressing (in the binding or a policy), by namespace: the headers' namespace. */
const USING_ADDRESSING: Record<string, string> = {
  'http://www.w3.org/2006/05/addressing/wsdl': ADDRESSING_10_NS,
  'http://www.w3.org/2006/02/addressing/wsdl': ADDRESSING_10_NS,
  'http://schemas.xmlsoap.org/ws/2004/08/addressing/policy': ADDRESSING_2004_NS,
  [ADDRESSING_2004_NS]: ADDRESSING_2004_NS,
};
/** WS-Addressing Metadata's policy assertion `wsam:Addressing`. */
const ADDRESSING_METADATA_NS = 'http://www.w3.org/2007/05/addressing/metadata';

/** The action an element states in an attribute `Action` of the WS-Addressing namespaces, or null. */
function statedAction(node: Element | undefined): string | null {
  if (node === undefined) return null;
  for (let index = 0; index < node.attributes.length; index++) {
    const item = node.attributes.item(index)!;
    if (item.localName === 'Action' && ACTION_NAMESPACES.has(item.namespaceURI ?? '') && item.value.trim() !== '') return item.value.trim();
  }
  return null;
}

/**
 * WS-Addressing's default action of an input: [target namespace][delimiter][port type][delimiter][input name],
 * the delimiter ':' for a URN and '/' otherwise, not doubled after a namespace ending with it.
 */
function defaultAction(namespace: string, portType: string, input: string): string {
  const delimiter = namespace.toLowerCase().startsWith('urn:') ? ':' : '/';
  return `${namespace.endsWith(delimiter) ? namespace : `${namespace}${delimiter}`}${portType}${delimiter}${input}`;
}

/** The wsp:Policy elements of the documents by their id (wsu:Id, Id or xml:id), for `PolicyReference URI="#id"`. */
type Policies = Map<string, Element>;

function policyId(node: Element): string | undefined {
  for (let index = 0; index < node.attributes.length; index++) {
    const item = node.attributes.item(index)!;
    if (item.localName === 'Id' || (item.localName === 'id' && item.prefix === 'xml')) return item.value.trim();
  }
  return undefined;
}

/**
 * Whether a binding uses WS-Addressing: wsaw:UsingAddressing among its children (required when
 * wsdl:required="true"), or UsingAddressing or wsam:Addressing in a policy it holds or references
 * (required unless wsp:Optional="true").
 */
function addressingOf(binding: Element, policies: Policies): AddressingDef | null {
  for (const child of childElements(binding)) {
    const namespace = USING_ADDRESSING[child.namespaceURI ?? ''];
    if (child.localName === 'UsingAddressing' && namespace !== undefined)
      return { namespace, required: child.getAttributeNS(WSDL_NS, 'required') === 'true' || attribute(child, 'required') === 'true' };
  }
  const seen = new Set<Element>();
  const search = (node: Element): AddressingDef | null => {
    if (seen.has(node)) return null;
    seen.add(node);
    for (const child of childElements(node)) {
      const ns = child.namespaceURI ?? '';
      const namespace =
        child.localName === 'UsingAddressing'
          ? USING_ADDRESSING[ns]
          : child.localName === 'Addressing' && ns === ADDRESSING_METADATA_NS
            ? ADDRESSING_10_NS
            : undefined;
      if (namespace !== undefined) {
        const optional = [...Array.from({ length: child.attributes.length }, (_, index) => child.attributes.item(index)!)].some(
          (item) => item.localName === 'Optional' && item.value.trim() === 'true',
        );
        return { namespace, required: !optional };
      }
      const found = child.localName === 'PolicyReference' ? referenced(attribute(child, 'URI')) : search(child);
      if (found !== null) return found;
    }
    return null;
  };
  const referenced = (uri: string | undefined): AddressingDef | null => {
    const policy = uri?.startsWith('#') ? policies.get(uri.slice(1)) : undefined;
    return policy === undefined ? null : search(policy);
  };
  for (const uri of (attribute(binding, 'PolicyURIs') ?? '').split(/\s+/).filter(Boolean)) {
    const found = referenced(uri);
    if (found !== null) return found;
  }
  for (const child of childElements(binding)) {
    const found =
      child.localName === 'Policy' ? search(child) : child.localName === 'PolicyReference' ? referenced(attribute(child, 'URI')) : null;
    if (found !== null) return found;
  }
  return null;
}

function bindingDef(node: Element, name: QName, policies: Policies): BindingDef {
  const soap = soapChild(node, 'binding');
  return {
    addressing: addressingOf(node, policies),
    name,
    portType: qnameAttribute(node, 'type'),
    version: soap?.version ?? null,
    isHttp: childElements(node).some((child) => child.localName === 'binding' && child.namespaceURI === HTTP_BINDING_NS),
    style: styleOf(soap === undefined ? undefined : attribute(soap.element, 'style')) ?? 'document',
    operations: wsdlChildren(node, 'operation').map((operation) => {
      const soapOperation = soapChild(operation, 'operation')?.element;
      return {
        name: attribute(operation, 'name') ?? '',
        soapAction: (soapOperation === undefined ? undefined : attribute(soapOperation, 'soapAction')) ?? '',
        style: styleOf(soapOperation === undefined ? undefined : attribute(soapOperation, 'style')),
        input: bodyDef(wsdlChildren(operation, 'input')[0]),
        output: bodyDef(wsdlChildren(operation, 'output')[0]),
      };
    }),
  };
}

/**
 * A port's address: a relative one (`/services/Echo`, seen in WSDLs a server generates) is
 * relative to the WSDL's URL, as for any link in a fetched document; in a WSDL file it stays as
 * written (the service option `location` must then say where the host is).
 */
function resolveAddress(location: string, documentUri: string): string {
  if (location === '' || /^[a-z][a-z0-9+.-]*:/i.test(location) || !/^https?:\/\//i.test(documentUri)) return location;
  try {
    return new URL(location, documentUri).href;
  } catch {
    return location;
  }
}

/** Reads the WSDL structure of the documents (the first is the main WSDL). */
export function readWsdl(documents: readonly WsdlDocument[]): WsdlDescription {
  const description: WsdlDescription = {
    targetNamespace: attribute(documents[0].root, 'targetNamespace') ?? '',
    schemas: new XsdIndex(),
    messages: new Map(),
    portTypes: new Map(),
    bindings: new Map(),
    services: [],
    overloads: [],
  };
  const policies: Policies = new Map();
  for (const document of documents)
    for (const child of childElements(document.root)) {
      const id = child.localName === 'Policy' ? policyId(child) : undefined;
      if (id !== undefined && !policies.has(id)) policies.set(id, child);
    }
  for (const document of documents) {
    for (const schema of schemaElements(document.root)) description.schemas.addSchema(schema, document.chameleonNamespace);
    if (document.root.localName !== 'definitions') continue;
    const ns = attribute(document.root, 'targetNamespace') ?? '';
    const named = (node: Element): QName => ({ ns, local: attribute(node, 'name') ?? '' });
    const addOnce = <T>(map: Map<string, T>, name: QName, make: () => T) => {
      if (!map.has(qnameKey(name))) map.set(qnameKey(name), make());
    };
    for (const message of wsdlChildren(document.root, 'message')) {
      addOnce(description.messages, named(message), () => ({
        name: named(message),
        parts: wsdlChildren(message, 'part').map((part) => ({
          name: attribute(part, 'name') ?? '',
          element: qnameAttribute(part, 'element'),
          type: qnameAttribute(part, 'type'),
          node: part,
        })),
      }));
    }
    for (const portType of wsdlChildren(document.root, 'portType')) {
      addOnce(description.portTypes, named(portType), () => {
        const operations = new Map<string, PortTypeOperation>();
        for (const operation of wsdlChildren(portType, 'operation')) {
          const name = attribute(operation, 'name') ?? '';
          const message = (local: string) => {
            const io = wsdlChildren(operation, local)[0];
            return io === undefined ? null : qnameAttribute(io, 'message');
          };
          const input = wsdlChildren(operation, 'input')[0];
          const output = message('output');
          const inputName = (input === undefined ? undefined : attribute(input, 'name')) ?? (output === null ? name : `${name}Request`);
          if (!operations.has(name))
            operations.set(name, {
              name,
              documentation: documentation(operation),
              input: message('input'),
              output,
              solicit:
                input !== undefined &&
                output !== null &&
                childElements(operation).indexOf(input) > childElements(operation).indexOf(wsdlChildren(operation, 'output')[0]),
              faults: wsdlChildren(operation, 'fault')
                .map((fault) => qnameAttribute(fault, 'message'))
                .filter((fault): fault is QName => fault !== null),
              action: statedAction(input),
              defaultAction: defaultAction(ns, named(portType).local, inputName),
            });
          else description.overloads.push({ portType: named(portType).local, operation: name });
        }
        return operations;
      });
    }
    for (const binding of wsdlChildren(document.root, 'binding'))
      addOnce(description.bindings, named(binding), () => bindingDef(binding, named(binding), policies));
    for (const service of wsdlChildren(document.root, 'service')) {
      description.services.push({
        name: attribute(service, 'name') ?? '',
        ports: wsdlChildren(service, 'port').map((port) => {
          const address = childElements(port).find((child) => child.localName === 'address');
          const location = address === undefined ? undefined : attribute(address, 'location');
          return {
            name: attribute(port, 'name') ?? '',
            binding: qnameAttribute(port, 'binding'),
            address: location === undefined ? null : resolveAddress(location.trim(), document.uri),
          };
        }),
      });
    }
  }
  return description;
}
