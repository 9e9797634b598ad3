/**
 * Reads a WSDL and every document it pulls in (wsdl:import, xsd:import, xsd:include,
 * xsd:redefine), relative locations resolved against the importing document, plus the built-in
 * standard schemas. Imports of a standard schema are never fetched, so WSDLs load offline.
 * A WSDL fetched from a URL may only import over http(s).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importedStandardSchema, isStandardSchema, STANDARD_SCHEMA_FILES } from './standard-schemas.js';
import type { SoapTransport } from '../call/soap-transport.js';
import type { WsdlLocation } from './wsdl-source.js';
import { attribute, childElements, decodeXml, isXsdNamespace, MAX_NESTING, nestsDeeperThan, parseXml, XmlSyntaxError } from '../xml-dom.js';
import { message, PorticoError } from '../../../core/errors.js';
import { soapMessages } from '../soap-messages.js';
import { shownUrl } from '../../../core/shown-url.js';

const WSDL2_NS = 'http://www.w3.org/ns/wsdl';
/** Guards against import loops through ever-new URLs. */
const MAX_DOCUMENTS = 2000;

/**
 * A loaded document. WSDL elements are those in the namespace of its root `definitions` (the WSDL
 * 1.1 namespace, but node-soap, and so the corpus of WSDLs it loads, tolerates others).
 */
export interface WsdlDocument {
  /** Absolute file path or URL. */
  uri: string;
  /** The location as the WSDL wrote it (or the WSDL's own file name), for messages. */
  label: string;
  root: Element;
  /** Namespace of the schema that included this one, when this schema declares none (chameleon include). */
  chameleonNamespace: string | null;
}

interface Pending {
  uri: string;
  label: string;
  chameleonNamespace: string | null;
  importedBy: string | null;
  /** An XML Schema (pulled in by xs:import, xs:include or xs:redefine), not a WSDL. */
  schema: boolean;
}

const isUrl = (uri: string) => /^https?:\/\//i.test(uri);

function resolveImport(base: string, location: string, importedBy: string): string {
  const written = location.trim().replace(/\\/g, '/');
  if (isUrl(written)) return new URL(written).href;
  if (isUrl(base)) {
    const resolved = new URL(written, base).href;
    if (!isUrl(resolved)) throw soapMessages.wsdlImportNotHttp.error(importedBy, shownUrl(location));
    return resolved;
  }
  if (/^file:/i.test(written)) return fileURLToPath(written);
  return path.resolve(path.dirname(base), written);
}

async function readText(pending: Pending, transport: SoapTransport): Promise<string> {
  const from = pending.importedBy === null ? '' : ` (imported by '${pending.importedBy}')`;
  const what = (file: boolean) => (!pending.schema ? 'WSDL document' : file ? 'schema file' : 'schema');
  if (isUrl(pending.uri)) {
    const reply = await transport.exchange(pending.uri, null).catch((error: unknown) => {
      // An import whose host cannot be reached (or does not answer): which document imports it,
      // with the status the transport gave (503 for a host that cannot be reached).
      if (pending.importedBy === null || !(error instanceof PorticoError)) throw error;
      const reason = `${error.message.charAt(0).toLowerCase()}${error.message.slice(1).replace(/\.$/, '')}`;
      throw message(error.status, () => soapMessages.wsdlUnreadable.text(what(false), shownUrl(pending.uri), from, reason)).error();
    });
    if (reply.status !== 200) throw soapMessages.wsdlUnreadable.error(what(false), shownUrl(pending.uri), from, `HTTP ${reply.status}`);
    return reply.body;
  }
  try {
    return decodeXml(await fs.readFile(pending.uri));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw soapMessages.wsdlUnreadable.error(
      what(true),
      `'${pending.label}'`,
      from,
      code === 'ENOENT' ? 'no such file' : (code ?? String(error)),
    );
  }
}

/** An HTML page (what a wrong WSDL address often serves): a doctype or <html> first, after comments. */
const HTML_START = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html)[\s>]/i;

/** The text of an HTML page's <title>, shortened, or ''. */
function htmlTitle(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.replace(/\s+/g, ' ').trim() ?? '';
  return title.length > 80 ? `${title.slice(0, 79)}…` : title;
}

function checkRoot(root: Element, pending: Pending): void {
  const ns = root.namespaceURI ?? '';
  // node-soap reads WSDLs by local names; some in the wild put wsdl:definitions in another namespace.
  if (root.localName === 'definitions' && ns !== WSDL2_NS) return;
  if (isXsdNamespace(ns) && root.localName === 'schema' && pending.importedBy !== null) return;
  if (ns === WSDL2_NS) {
    throw soapMessages.wsdl2.error(pending.label);
  }
  throw soapMessages.notWsdl.error(pending.label, root.nodeName);
}

/** The schema elements of a document: the root schema, or those under wsdl:types. */
export function schemaElements(root: Element): Element[] {
  if (root.localName === 'schema') return [root];
  return childElements(root)
    .filter((child) => child.localName === 'types' && child.namespaceURI === root.namespaceURI)
    .flatMap((types) => childElements(types).filter((child) => child.localName === 'schema' && isXsdNamespace(child.namespaceURI)));
}

/** The documents a document imports; the built-in schemas loaded on import that it imports join `standard` (namespace -> file). */
function importsOf(
  document: WsdlDocument,
  standard: Map<string, string>,
): Array<{ location: string; chameleonNamespace: string | null; schema: boolean }> {
  const found: Array<{ location: string; chameleonNamespace: string | null; schema: boolean }> = [];
  for (const child of childElements(document.root)) {
    if (child.localName !== 'import' || child.namespaceURI !== document.root.namespaceURI) continue;
    const location = attribute(child, 'location');
    if (location !== undefined && !isStandardSchema(attribute(child, 'namespace'), location))
      found.push({ location, chameleonNamespace: null, schema: false });
  }
  for (const schema of schemaElements(document.root)) {
    const ownNamespace = attribute(schema, 'targetNamespace') ?? document.chameleonNamespace ?? '';
    for (const child of childElements(schema)) {
      if (!isXsdNamespace(child.namespaceURI)) continue;
      const location = attribute(child, 'schemaLocation');
      const builtIn = child.localName === 'import' ? importedStandardSchema(attribute(child, 'namespace'), location) : undefined;
      if (builtIn !== undefined) standard.set(builtIn.namespace, builtIn.file);
      if (location === undefined || location.trim() === '') continue;
      if (child.localName === 'import' && !isStandardSchema(attribute(child, 'namespace'), location))
        found.push({ location, chameleonNamespace: null, schema: true });
      if ((child.localName === 'include' || child.localName === 'redefine') && !isStandardSchema(undefined, location))
        found.push({ location, chameleonNamespace: ownNamespace, schema: true });
    }
  }
  return found;
}

/**
 * Reads the WSDL at `location` and everything it imports, in breadth-first order, then the
 * standard schemas. Problems are PorticoErrors naming the document: a missing file or an HTTP
 * error is a 500 (configuration), an unreachable host a 503.
 */
export async function loadWsdlDocuments(location: WsdlLocation, transport: SoapTransport): Promise<WsdlDocument[]> {
  const main = location.kind === 'url' ? location.url : location.path;
  const queue: Pending[] = [
    {
      uri: main,
      label: location.kind === 'url' ? shownUrl(main) : path.basename(main),
      chameleonNamespace: null,
      importedBy: null,
      schema: false,
    },
  ];
  const seen = new Set([main]);
  const documents: WsdlDocument[] = [];
  const importedStandard = new Map<string, string>();
  while (queue.length > 0) {
    const pending = queue.shift()!;
    const text = await readText(pending, transport);
    let root: Element;
    try {
      root = parseXml(text.replace(/^\uFEFF/, '')).documentElement!;
    } catch (error) {
      if (!(error instanceof XmlSyntaxError)) throw error;
      if (HTML_START.test(text)) throw soapMessages.wsdlIsHtml.error(pending.label, htmlTitle(text));
      throw soapMessages.wsdlMalformed.error(pending.label, error.message);
    }
    if (root.localName.toLowerCase() === 'html') throw soapMessages.wsdlIsHtml.error(pending.label, htmlTitle(text));
    checkRoot(root, pending);
    // Schemas are read recursively: a nesting no real WSDL has must not exhaust the stack.
    if (nestsDeeperThan(root, MAX_NESTING)) throw soapMessages.wsdlTooDeep.error(pending.label, MAX_NESTING);
    const document: WsdlDocument = { uri: pending.uri, label: pending.label, root, chameleonNamespace: pending.chameleonNamespace };
    documents.push(document);
    for (const { location: written, chameleonNamespace, schema } of importsOf(document, importedStandard)) {
      const uri = resolveImport(pending.uri, written, pending.label);
      if (seen.has(uri)) continue;
      if (seen.size >= MAX_DOCUMENTS) throw soapMessages.wsdlTooManyDocuments.error(MAX_DOCUMENTS);
      seen.add(uri);
      queue.push({ uri, label: shownUrl(written), chameleonNamespace, importedBy: pending.label, schema });
    }
  }
  // A built-in schema only where the WSDL does not define that namespace itself.
  const defined = new Set(
    documents.flatMap((document) => schemaElements(document.root).map((schema) => attribute(schema, 'targetNamespace'))),
  );
  const onImport = [...importedStandard].filter(([namespace]) => !defined.has(namespace)).map(([, file]) => file);
  return [...documents, ...(await standardDocuments()), ...(await Promise.all(onImport.map(standardDocument)))];
}

const parsedStandard = new Map<string, Promise<WsdlDocument>>();

/** A built-in schema, parsed once per process (nothing changes it). */
function standardDocument(file: string): Promise<WsdlDocument> {
  let parsed = parsedStandard.get(file);
  if (parsed === undefined) {
    parsed = fs
      .readFile(file, 'utf8')
      .then((text) => ({ uri: file, label: path.basename(file), root: parseXml(text).documentElement!, chameleonNamespace: null }));
    parsedStandard.set(file, parsed);
  }
  return parsed;
}

let standard: Promise<WsdlDocument[]> | null = null;

/** The built-in schemas, parsed once per process (nothing changes them). */
function standardDocuments(): Promise<WsdlDocument[]> {
  standard ??= Promise.all(STANDARD_SCHEMA_FILES.map(standardDocument));
  return standard;
}
