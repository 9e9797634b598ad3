/**
 * The standard schemas WSDLs import by namespace or by their well-known URL (SOAP encoding,
 * xmlmime, the XML namespace; SOAP envelopes and WS-Addressing where imported), shipped in
 * ./standard-schemas/ so that WSDLs load offline. An import that names one of them is never fetched.
 */
import { fileURLToPath } from 'node:url';

const FILES: Record<string, string> = {
  'http://schemas.xmlsoap.org/soap/encoding/': 'soap-encoding.xsd',
  'http://www.w3.org/2003/05/soap-encoding': 'soap12-encoding.xsd',
  'http://www.w3.org/2005/05/xmlmime': 'xmlmime.xsd',
  'http://www.w3.org/XML/1998/namespace': 'xml.xsd',
};

/** Locations WSDLs use for these schemas besides their namespace names. */
const KNOWN_LOCATIONS = new Set([
  'http://www.w3.org/2001/xml.xsd',
  'https://www.w3.org/2001/xml.xsd',
  'http://www.w3.org/2009/01/xml.xsd',
  'http://www.w3.org/2005/05/xmlmime.xsd',
  'http://schemas.xmlsoap.org/soap/encoding',
  'https://schemas.xmlsoap.org/soap/encoding/',
]);

/**
 * Standard schemas loaded only where a schema imports them (by namespace, or at a remote URL: a
 * relative location is the WSDL's own copy and is read), and not defined by the WSDL itself: their
 * global elements (Envelope, Fault, To, Action...) would otherwise join every WSDL's types.
 */
const ON_IMPORT: Record<string, string> = {
  'http://schemas.xmlsoap.org/soap/envelope/': 'soap-envelope.xsd',
  'http://www.w3.org/2003/05/soap-envelope': 'soap12-envelope.xsd',
  'http://www.w3.org/2005/08/addressing': 'ws-addressing.xsd',
};

const schemaFile = (file: string) => fileURLToPath(new URL(`./standard-schemas/${file}`, import.meta.url));

/** Absolute paths of the built-in schema files always loaded. */
export const STANDARD_SCHEMA_FILES: readonly string[] = Object.values(FILES).map(schemaFile);

/**
 * The built-in schema an import of `namespace` at `location` is satisfied by, among those loaded
 * on import: its namespace and absolute path.
 */
export function importedStandardSchema(
  namespace: string | undefined,
  location: string | undefined,
): { namespace: string; file: string } | undefined {
  if (namespace === undefined || !(namespace in ON_IMPORT)) return undefined;
  if (location !== undefined && location.trim() !== '' && !/^https?:\/\//i.test(location.trim())) return undefined;
  return { namespace, file: schemaFile(ON_IMPORT[namespace] as string) };
}

/** Whether an import of `namespace` at `location` is satisfied by a built-in schema. */
export function isStandardSchema(namespace: string | undefined, location: string | undefined): boolean {
  return (
    (namespace !== undefined && namespace in FILES) ||
    (location !== undefined && (location in FILES || KNOWN_LOCATIONS.has(location))) ||
    importedStandardSchema(namespace, location) !== undefined
  );
}
