/**
 * A SOAP response -> JSON, driven by the message's JSON Schema: local names only (namespaces
 * dropped), attributes as plain members, text beside attributes under `_`, xsi:nil as null,
 * arrays wherever the schema says an element repeats (one occurrence is still an array), and
 * values typed as the schema says (integers beyond 2^53 stay text, so no digit is lost). What the
 * schema does not describe is still returned, read generically. An element whose xsi:type names a
 * derived type is read as that type. SOAP-encoded multi-references (`href="#id"`) are followed. A
 * Fault becomes a SoapFault.
 */
import { decimalValue, isHeldByDouble } from '../../../core/decimal-text.js';
import { InternalServerError } from '../../../core/errors.js';
import { DOUBLE_DIGITS } from '../../../model/field-rules.js';
import type { JsonSchema, SoapMessageModel } from '../../../model/platform-model.js';
import type { ObjectShape, SchemaView, Shape } from '../wsdl/json-schema-view.js';
import { builtinSchema, DEFINITION_REF } from '../wsdl/json-schema-parts.js';
import {
  childElements,
  isXsdNamespace,
  MAX_NESTING,
  nestsDeeperThan,
  ownText,
  parseXml,
  XmlSyntaxError,
  XMLNS_NS,
  XSI_NS,
} from '../xml-dom.js';
import { soapMessages } from '../soap-messages.js';

export const SOAP11_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12_ENVELOPE_NS = 'http://www.w3.org/2003/05/soap-envelope';
const ENVELOPES = new Set([SOAP11_ENVELOPE_NS, SOAP12_ENVELOPE_NS]);
const ENCODING_NAMESPACES = new Set(['http://schemas.xmlsoap.org/soap/encoding/', 'http://www.w3.org/2003/05/soap-encoding']);

/** A SOAP Fault, in both versions' terms. */
export interface SoapFault {
  /** faultcode (1.1) or Code/Value with its Subcode values joined by ' / ' (1.2), prefix kept. */
  code: string;
  /** faultstring (1.1) or the first Reason/Text (1.2). */
  text: string;
  /** faultactor (1.1) or Role (1.2), when present. */
  actor?: string;
  /** The detail content, read generically, when present. */
  detail?: unknown;
}

export type SoapReply = { fault: SoapFault } | { value: Record<string, unknown> };

type Json = unknown;

/** SOAP 1.2 RPC's namespace (rpc:result). */
const SOAP12_RPC_NS = 'http://www.w3.org/2003/05/soap-rpc';

/** Parses a response envelope; what is not a SOAP envelope is an InternalServerError. */
export function parseEnvelope(xml: string): Element {
  let root: Element;
  try {
    root = parseXml(xml).documentElement!;
  } catch (error) {
    if (!(error instanceof XmlSyntaxError)) throw error;
    throw soapMessages.malformedResponse.error(error.message);
  }
  if (root.localName !== 'Envelope' || !ENVELOPES.has(root.namespaceURI ?? '')) {
    throw soapMessages.notAnEnvelope.error(root.nodeName);
  }
  // Reading is recursive: a hostile nesting must not exhaust the stack. Envelope and Body come on top.
  if (nestsDeeperThan(root, MAX_NESTING + 2)) throw soapMessages.responseTooDeep.error(MAX_NESTING);
  return root;
}

/** An xsi: attribute; some servers (node-soap's own) write the prefix without declaring it. */
function isXsi(attribute: Attr): boolean {
  return attribute.namespaceURI === XSI_NS || (!attribute.namespaceURI && attribute.prefix === 'xsi');
}

/** The value of an element's xsi:type, or undefined. */
function xsiType(element: Element): string | undefined {
  for (let index = 0; index < element.attributes.length; index++) {
    const attribute = element.attributes.item(index)!;
    if (attribute.localName === 'type' && isXsi(attribute)) return attribute.value.trim();
  }
  return undefined;
}

/** The XML name an element's xsi:type gives (its prefix resolved there), or undefined. */
function xsiTypeName(element: Element): { ns: string; local: string } | undefined {
  const type = xsiType(element);
  if (type === undefined) return undefined;
  const colon = type.indexOf(':');
  const ns = colon < 0 ? element.lookupNamespaceURI('') : element.lookupNamespaceURI(type.slice(0, colon));
  return { ns: ns ?? '', local: type.slice(colon + 1) };
}

/**
 * The shape of the XML Schema built-in type an element's xsi:type names (`xsd:int` in an
 * anyType `return`, as Axis2 and SOAP-encoded services write), or undefined.
 */
function builtinShape(element: Element): Shape | undefined {
  const name = xsiTypeName(element);
  if (name === undefined || !isXsdNamespace(name.ns)) return undefined;
  const { type, format } = builtinSchema(name.local);
  return {
    kind: 'scalar',
    type: type === 'integer' || type === 'number' || type === 'boolean' ? type : 'string',
    enum: null,
    ...(typeof format === 'string' ? { format } : {}),
  };
}

function isNil(element: Element): boolean {
  for (let index = 0; index < element.attributes.length; index++) {
    const attribute = element.attributes.item(index)!;
    if (attribute.localName === 'nil' && isXsi(attribute)) return attribute.value === 'true' || attribute.value === '1';
  }
  return false;
}

function typed(text: string, shape: Shape): Json {
  if (shape.kind !== 'scalar') return text;
  // An empty number or boolean is no value (the reference's client reads it as null), not the text ''.
  if ((shape.type === 'integer' || shape.type === 'number' || shape.type === 'boolean') && text.trim() === '') return null;
  switch (shape.type) {
    case 'integer': {
      const trimmed = text.trim();
      if (!/^[+-]?\d+$/.test(trimmed)) return text;
      const number = Number(trimmed);
      return Number.isSafeInteger(number) ? number : trimmed;
    }
    case 'number': {
      const trimmed = text.trim();
      const number = Number(trimmed);
      if (trimmed === '' || !Number.isFinite(number)) return text;
      // An xs:decimal (no format) with more digits than the number gives back stays text, so that
      // no digit is lost (json-schema-parts.ts isWideDecimal); float and double are doubles.
      const wide = shape.format === undefined && (shape.totalDigits === undefined || shape.totalDigits > DOUBLE_DIGITS);
      return wide && decimalValue(trimmed) !== null && !isHeldByDouble(trimmed) ? trimmed : number;
    }
    case 'boolean': {
      const trimmed = text.trim();
      return trimmed === 'true' || trimmed === '1' ? true : trimmed === 'false' || trimmed === '0' ? false : text;
    }
    default:
      return text;
  }
}

/** Attributes that are data: not namespace declarations, xsi: or encoding markup, nor multi-reference links. */
function dataAttributes(element: Element, references: References): Attr[] {
  const attributes: Attr[] = [];
  for (let index = 0; index < element.attributes.length; index++) {
    const attribute = element.attributes.item(index)!;
    const ns = attribute.namespaceURI ?? '';
    if (
      ns === XMLNS_NS ||
      attribute.name === 'xmlns' ||
      attribute.name.startsWith('xmlns:') ||
      isXsi(attribute) ||
      ENCODING_NAMESPACES.has(ns) ||
      ENVELOPES.has(ns)
    )
      continue;
    if (
      ns === '' &&
      ((attribute.localName === 'href' && attribute.value.startsWith('#')) ||
        (attribute.localName === 'id' && references.isTarget(element)))
    )
      continue;
    attributes.push(attribute);
  }
  return attributes;
}

/**
 * Sets an own member, whatever its name: XML names such as `constructor`, `toString` or
 * `__proto__` are data here, not the members every object inherits.
 */
function setMember(target: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Sets `key` on an object: always an array for a repeated member; a second value of another member makes one. */
function put(target: Record<string, Json>, key: string, value: Json, array: boolean, repeated: Set<string>): void {
  const existing = Object.hasOwn(target, key) ? target[key] : undefined;
  if (array || repeated.has(key)) {
    if (Array.isArray(existing)) existing.push(value);
    else setMember(target, key, existing === undefined ? [value] : [existing, value]);
    repeated.add(key);
  } else if (existing === undefined) {
    setMember(target, key, value);
  } else {
    setMember(target, key, [existing, value]);
    repeated.add(key);
  }
}

export class ResponseReader {
  /**
   * `derivedTypes`: definition names of complex types derived from others, by XML name
   * (`{ns}local`), for elements whose xsi:type names one (the model's `derivedTypes`).
   */
  constructor(
    private readonly view: SchemaView,
    private readonly derivedTypes: Readonly<Record<string, string>> = {},
  ) {}

  /**
   * The JSON of a response envelope: the message's value, or the fault, its detail typed by
   * `faultDetail` (the operation's declared faults) where that describes it.
   */
  read(envelope: Element, message: SoapMessageModel | null, faultDetail?: JsonSchema): SoapReply {
    const body = childElements(envelope).find((child) => child.localName === 'Body');
    if (body === undefined) throw soapMessages.envelopeWithoutBody.error();
    const first = childElements(body)[0];
    if (first !== undefined && first.localName === 'Fault' && ENVELOPES.has(first.namespaceURI ?? ''))
      return { fault: this.fault(first, faultDetail) };
    if (message === null) return { value: {} };
    const references = new References(body);
    const container = message.wrapper === null ? body : first;
    if (container === undefined) return { value: {} };
    const shape = this.view.shape(message.schema);
    const value = shape.kind === 'object' ? this.object(references.target(container), shape, references) : {};
    return { value };
  }

  private value(element: Element, schema: JsonSchema, references: References): Json {
    const target = references.target(element);
    if (isNil(target)) return null;
    const shape = this.view.shape(this.declaredType(target) ?? schema);
    if (shape.kind === 'object') return this.object(target, shape, references);
    if (shape.kind === 'array') return this.array(target, shape.items, references);
    if (shape.type === null && (childElements(target).length > 0 || dataAttributes(target, references).length > 0))
      return generic(target, references);
    // A value of any type is typed as the built-in type its xsi:type names, as the reference's client reads it.
    return typed(ownText(target), shape.type === null ? (builtinShape(target) ?? shape) : shape);
  }

  /** The schema of a derived type an element names in xsi:type (polymorphic replies), or undefined. */
  private declaredType(element: Element): JsonSchema | undefined {
    const type = xsiTypeName(element);
    const name = type === undefined ? undefined : this.derivedTypes[`{${type.ns}}${type.local}`];
    return name === undefined ? undefined : { $ref: `${DEFINITION_REF}${name}` };
  }

  /**
   * A SOAP-encoded array: its child elements are the items. Servers that write such an array as
   * if it were literal (node-soap's) repeat the array's element once per item instead, each holding
   * one item's members (or text): that element is then one item.
   */
  private array(element: Element, itemSchema: JsonSchema, references: References): Json[] {
    const children = childElements(element);
    const item = this.view.shape(itemSchema);
    const oneItem =
      children.length === 0
        ? item.kind === 'scalar' && ownText(element).trim() !== ''
        : item.kind === 'object' && children.every((child) => item.elements.has(child.localName ?? child.nodeName));
    if (oneItem) return [this.value(element, itemSchema, references)];
    return children.map((child) => this.value(child, itemSchema, references));
  }

  private object(element: Element, shape: ObjectShape, references: References): Record<string, Json> {
    const result: Record<string, Json> = {};
    const repeated = new Set<string>();
    for (const attribute of dataAttributes(element, references)) {
      const member = shape.attributes.get(attribute.localName ?? attribute.name);
      setMember(
        result,
        member?.key ?? attribute.localName ?? attribute.name,
        member ? typed(attribute.value, this.view.shape(member.schema)) : attribute.value,
      );
    }
    if (shape.text !== null) {
      const text = ownText(element);
      const value = typed(text, this.view.shape(shape.text.schema));
      // Mixed content: the layout between child elements is no text.
      const layout = text.trim() === '' && childElements(element).length > 0;
      if (!layout && (text !== '' || typeof value === 'string')) result._ = value;
    }
    for (const child of childElements(element)) {
      // SOAP 1.2 RPC's rpc:result names the accessor of the return value (PHP's SoapServer writes it): no data.
      if (child.namespaceURI === SOAP12_RPC_NS) continue;
      const name = child.localName ?? child.nodeName;
      const member =
        (shape.sameLocalNames === true ? shape.elements.get(`{${child.namespaceURI ?? ''}}${name}`) : undefined) ??
        shape.elements.get(name);
      if (member === undefined) put(result, name, generic(references.target(child), references), false, repeated);
      else {
        const value = this.value(child, member.schema, references);
        const existing = Object.hasOwn(result, member.key) ? result[member.key] : undefined;
        // An encoded array repeated item by item (see array()): one array of all.
        if (!member.array && Array.isArray(value) && Array.isArray(existing) && this.view.shape(member.schema).kind === 'array')
          existing.push(...value);
        else put(result, member.key, value, member.array, repeated);
      }
    }
    return result;
  }

  /** A Fault in both versions' terms; its detail's elements typed as the declared faults say, others read generically. */
  private fault(fault: Element, faultDetail: JsonSchema | undefined): SoapFault {
    const child = (parent: Element | undefined, local: string) =>
      parent === undefined ? undefined : childElements(parent).find((c) => c.localName === local);
    const references = new References(fault);
    const code = child(fault, 'Code');
    let result: SoapFault;
    if (code !== undefined) {
      const values: string[] = [];
      for (let level: Element | undefined = code; level !== undefined; level = child(level, 'Subcode'))
        values.push(text(child(level, 'Value')));
      result = { code: values.filter(Boolean).join(' / '), text: text(child(child(fault, 'Reason'), 'Text')) };
      const role = child(fault, 'Role');
      if (role !== undefined) result.actor = text(role);
    } else {
      result = { code: text(child(fault, 'faultcode')), text: text(child(fault, 'faultstring')) };
      const actor = child(fault, 'faultactor');
      if (actor !== undefined) result.actor = text(actor);
    }
    const detail = child(fault, 'Detail') ?? child(fault, 'detail');
    if (detail !== undefined) {
      const shape = faultDetail === undefined ? undefined : this.view.shape(faultDetail);
      const content =
        shape?.kind === 'object' && childElements(detail).length > 0 ? this.object(detail, shape, references) : generic(detail, references);
      if (content !== '') result.detail = content;
    }
    return result;
  }
}

/** An element no schema describes: attributes and children as members (repeats as arrays), text alone as a string. */
function generic(element: Element, references: References): Json {
  if (isNil(element)) return null;
  const attributes = dataAttributes(element, references);
  const children = childElements(element);
  const text = ownText(element);
  if (attributes.length === 0 && children.length === 0) {
    const shape = builtinShape(element);
    return shape === undefined ? text : typed(text, shape);
  }
  const result: Record<string, Json> = {};
  const repeated = new Set<string>();
  for (const attribute of attributes) setMember(result, attribute.localName ?? attribute.name, attribute.value);
  if (text.trim() !== '') result._ = text;
  for (const child of children)
    put(result, child.localName ?? child.nodeName, generic(references.target(child), references), false, repeated);
  return result;
}

/** SOAP-encoded multi-references: an element with `href="#id"` stands for the Body element with that `id`. */
class References {
  /** Elements by id, collected when the first reference is met. */
  private ids: Map<string, Element> | null = null;
  private readonly targets = new Set<Element>();
  /** The ids `href`s name, collected when first needed. */
  private referenced: Set<string> | null = null;

  constructor(private readonly body: Element) {}

  target(element: Element): Element {
    const href = element.getAttribute('href');
    if (href === null || !href.startsWith('#')) return element;
    if (this.ids === null) {
      const ids = new Map<string, Element>();
      const walk = (node: Element) => {
        const id = node.getAttribute('id');
        if (id !== null && id !== '') ids.set(id, node);
        childElements(node).forEach(walk);
      };
      walk(this.body);
      this.ids = ids;
    }
    const target = this.ids.get(href.slice(1));
    if (target === undefined) return element;
    this.targets.add(target);
    return target;
  }

  /**
   * Whether an element is the target of a reference (its `id` is markup then, not data), whether
   * or not the reference has been met yet: PHP's SoapServer writes a repeated object in full where
   * it first occurs, with an id, and later occurrences as href.
   */
  isTarget(element: Element): boolean {
    if (this.targets.has(element)) return true;
    const id = element.getAttribute('id');
    if (id === null || id === '') return false;
    if (this.referenced === null) {
      const referenced = new Set<string>();
      const walk = (node: Element) => {
        const href = node.getAttribute('href');
        if (href?.startsWith('#')) referenced.add(href.slice(1));
        childElements(node).forEach(walk);
      };
      walk(this.body);
      this.referenced = referenced;
    }
    return this.referenced.has(id);
  }
}

function text(element: Element | undefined): string {
  return element === undefined ? '' : (element.textContent ?? '').trim();
}

/** The spec's error for a fault: 500, `"<text> [Fault code:<code>]"`, the parts in `context`. */
export function faultError(fault: SoapFault): InternalServerError {
  const context: Record<string, unknown> = { faultcode: fault.code, faultstring: fault.text };
  if (fault.actor !== undefined) context.faultactor = fault.actor;
  if (fault.detail !== undefined) context.detail = fault.detail;
  return new InternalServerError(soapMessages.fault.text(fault.text, fault.code), context);
}
