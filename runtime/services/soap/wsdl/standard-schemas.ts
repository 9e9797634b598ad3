/**
 * The standard schemas WSDLs import by namespace or by their well-known URL (SOAP encoding,
 * xmlmime, the XML namespace), shipped in ./standard-schemas/ so that WSDLs load offline. They are
 * always loaded; an import that names one of them is never fetched.
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

/** Absolute paths of the built-in schema files. */
export const STANDARD_SCHEMA_FILES: readonly string[] = Object.values(FILES).map((file) =>
  fileURLToPath(new URL(`./standard-schemas/${file}`, import.meta.url)),
);

/** Whether an import of `namespace` at `location` is satisfied by a built-in schema. */
export function isStandardSchema(namespace: string | undefined, location: string | undefined): boolean {
  return (
    (namespace !== undefined && namespace in FILES) || (location !== undefined && (location in FILES || KNOWN_LOCATIONS.has(location)))
  );
}
