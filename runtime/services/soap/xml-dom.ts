/**
 * The XML reading the SOAP family needs, on @xmldom/xmldom: parse to a namespace-aware DOM,
 * walk child elements, read attributes and resolve QName values (`tns:Foo`) in scope.
 */
import { DOMParser } from '@xmldom/xmldom';

export const XSD_NS = 'http://www.w3.org/2001/XMLSchema';
/** XML Schema's namespace and its draft names, which old WSDLs still use. */
const XSD_NAMESPACES = new Set([XSD_NS, 'http://www.w3.org/2000/10/XMLSchema', 'http://www.w3.org/1999/XMLSchema']);

export function isXsdNamespace(ns: string | null): boolean {
  return ns !== null && XSD_NAMESPACES.has(ns);
}
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
export const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/** A namespace-qualified name. `ns` is '' for names in no namespace. */
export interface QName {
  ns: string;
  local: string;
}

/** Thrown when a text is no well-formed XML; `message` says where. */
export class XmlSyntaxError extends Error {}

/** Parses XML; an error throws XmlSyntaxError. xmldom is lenient: what it only warns about (an unclosed tag) is accepted. */
export function parseXml(text: string): Document {
  let problem: string | null = null;
  const record = (message: unknown) => {
    problem ??= String(message).replace(/^\[xmldom \w+\]\s*/, '');
  };
  // The locator adds `@#[line:..,col:..]` to messages.
  const parser = new DOMParser({ locator: {}, errorHandler: { warning: () => undefined, error: record, fatalError: record } });
  let document: Document;
  try {
    document = parser.parseFromString(text, 'text/xml');
  } catch (error) {
    throw new XmlSyntaxError(error instanceof Error ? error.message : String(error));
  }
  if (problem !== null || !document.documentElement) throw new XmlSyntaxError((problem ?? 'no root element').replace(/\s+/g, ' ').trim());
  return document;
}

/** The element children of a node, in document order. */
export function childElements(node: Node): Element[] {
  const elements: Element[] = [];
  for (let child = node.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType === 1) elements.push(child as Element);
  }
  return elements;
}

/** The element children with the given namespace and local name. */
export function childrenNamed(node: Node, ns: string, local: string): Element[] {
  return childElements(node).filter((child) => child.localName === local && (child.namespaceURI ?? '') === ns);
}

/** The first element child with the given namespace and local name, or undefined. */
export function firstChildNamed(node: Node, ns: string, local: string): Element | undefined {
  return childElements(node).find((child) => child.localName === local && (child.namespaceURI ?? '') === ns);
}

/** An attribute in no namespace, or undefined when absent. */
export function attribute(element: Element, name: string): string | undefined {
  return element.hasAttribute(name) ? (element.getAttribute(name) ?? undefined) : undefined;
}

/** The text of a node's own text and CDATA children (not of its descendants). */
export function ownText(element: Element): string {
  let text = '';
  for (let child = element.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType === 3 || child.nodeType === 4) text += child.nodeValue ?? '';
  }
  return text;
}

/**
 * Resolves a QName-valued attribute (`xsd:int`, `Foo`) in the scope of `element`. An unprefixed
 * name takes the default namespace, as XML Schema says; `fallbackNs` stands in when there is none
 * (a chameleon-included schema takes its includer's namespace).
 */
export function resolveQName(element: Element, value: string, fallbackNs = ''): QName {
  const text = value.trim();
  const colon = text.indexOf(':');
  // xmldom keeps the default namespace under the empty prefix.
  if (colon < 0) return { ns: element.lookupNamespaceURI('') || fallbackNs, local: text };
  const prefix = text.slice(0, colon);
  // `xml` is bound by XML itself and needs no declaration.
  return { ns: prefix === 'xml' ? XML_NS : (element.lookupNamespaceURI(prefix) ?? ''), local: text.slice(colon + 1) };
}

/** `{ns}local`: a map key for a QName. */
export function qnameKey(name: QName): string {
  return `{${name.ns}}${name.local}`;
}

/** Escapes text for element content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;'));
}
