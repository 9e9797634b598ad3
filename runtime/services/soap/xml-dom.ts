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
export const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/** A namespace-qualified name. `ns` is '' for names in no namespace. */
export interface QName {
  ns: string;
  local: string;
}

/**
 * The text of an XML document's bytes, in the encoding XML's rules give it: a byte order mark,
 * else the charset of the HTTP content type when there is one, else the encoding of the XML
 * declaration (`ISO-8859-1` is common in older WSDLs), else UTF-8. The byte order mark is dropped.
 */
export function decodeXml(bytes: Uint8Array, charset?: string): string {
  const [b0, b1, b2] = bytes;
  let encoding: string | undefined;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) encoding = 'utf-8';
  else if (b0 === 0xfe && b1 === 0xff) encoding = 'utf-16be';
  else if (b0 === 0xff && b1 === 0xfe) encoding = 'utf-16le';
  // `<?` without a byte order mark.
  else if (b0 === 0x3c && b1 === 0x00) encoding = 'utf-16le';
  else if (b0 === 0x00 && b1 === 0x3c) encoding = 'utf-16be';
  else
    encoding =
      charset ??
      /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(Buffer.from(bytes.subarray(0, 200)).toString('latin1'))?.[1];
  let text: string;
  try {
    text = new TextDecoder(encoding ?? 'utf-8').decode(bytes);
  } catch {
    // An encoding TextDecoder does not know: read as UTF-8, the default.
    text = new TextDecoder('utf-8').decode(bytes);
  }
  return text.replace(/^\uFEFF/, '');
}

/** Thrown when a text is no well-formed XML; `message` says where. */
export class XmlSyntaxError extends Error {}

/**
 * Parses XML; an error throws XmlSyntaxError. What xmldom only warns about is no well-formed XML
 * either (an element never closed, which it would close where its parent ends, quietly moving
 * what follows inside it; an attribute without quotes): it is refused too.
 */
export function parseXml(text: string): Document {
  if (text.trim() === '') throw new XmlSyntaxError('the document is empty');
  let problem: string | null = null;
  const record = (message: unknown) => {
    problem ??= unclosedElement(text, String(message).replace(/^\[xmldom \w+\]\s*/, ''));
  };
  // The locator adds `@#[line:..,col:..]` to messages.
  const parser = new DOMParser({ locator: {}, errorHandler: { warning: record, error: record, fatalError: record } });
  let document: Document;
  try {
    document = parser.parseFromString(text, 'text/xml');
  } catch (error) {
    throw new XmlSyntaxError(error instanceof Error ? error.message : String(error));
  }
  if (problem !== null || !document.documentElement) {
    let reason = (problem ?? 'no root element')
      .replace(/\s+/g, ' ')
      .replace(/\s*@#\[line:(\d+),col:(\d+)\]/, ' (line $1, column $2)')
      .trim();
    // xmldom reads no DTD, so an entity declared in one (XXE, entity bombs) is never expanded: say so.
    const entity = /^entity not found:\s*(&[^;\s]+;)(.*)$/.exec(reason);
    if (entity !== null && /<!ENTITY/.test(text))
      reason = `it uses the entity ${entity[1]} of its DTD, and DTD entities are not read (none is expanded)${entity[2]}`;
    throw new XmlSyntaxError(reason);
  }
  return document;
}

/** xmldom's warning for an element that is never closed, as a message naming the element (at the position it gives). */
function unclosedElement(text: string, message: string): string {
  const at = /^unclosed xml attribute\s*@#\[line:(\d+),col:(\d+)\]/.exec(message);
  if (at === null) return message;
  const name = /^<([^\s/>]+)/.exec(text.split('\n')[Number(at[1]) - 1]?.slice(Number(at[2]) - 1) ?? '')?.[1];
  return `the element ${name ?? ''} is not closed @#[line:${at[1]},col:${at[2]}]`.replace('element  is', 'element is');
}

/**
 * How deeply SOAP values may nest, in a request's JSON and in a response's XML: far beyond what
 * any schema needs, and well within the stack that writing and reading them recursively takes.
 */
export const MAX_NESTING = 500;

/** Whether elements nest more than `max` levels below `root` (walked with its own stack). */
export function nestsDeeperThan(root: Element, max: number): boolean {
  const stack: Array<[Node, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    for (let child = node.firstChild; child !== null; child = child.nextSibling) if (child.nodeType === 1) stack.push([child, depth + 1]);
  }
  return false;
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

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };

/** Escapes text for element content and attribute values (a carriage return too, which parsers would turn into a line feed). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"'\r]/g, (c) => ESCAPES[c]);
}
