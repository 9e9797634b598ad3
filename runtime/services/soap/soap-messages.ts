/**
 * The texts a SOAP service's clients see, each with its status: the unknown operation (the
 * spec's text), the request values the operation's schema refuses, what calling the SOAP host
 * can answer, and what reading a WSDL can answer (on a service's first call or `refresh=true`).
 * The not-found and verb texts every family shares are in core/messages.ts. The config option
 * checks of soap-config.ts keep their texts beside them: each explains one option.
 */
import { message } from '../../core/errors.js';

/** `Field 'a.b'`, or `The request` for the body itself. */
const subject = (path: string) => (path === '' ? 'The request' : `Field '${path}'`);
const field = (path: string) => ({ field: path });

export const soapMessages = {
  /** The spec's text for an unknown operation. */
  operationNotFound: message(404, (name: string) => `Function '${name}' does not exist on this service.`),

  // The request, checked against the operation's message schema (call/request-xml.ts).
  bodyNotObject: message(400, () => "The request must be a JSON object of the operation's fields."),
  notInteger: message(400, (path: string) => `${subject(path)} must be an integer.`, field),
  /** A value beyond its type's range or the schema's minInclusive/maxInclusive; either bound may be absent. */
  outOfRange: message(
    400,
    (path: string, min: string | undefined, max: string | undefined, kind: 'an integer' | 'a number' = 'an integer') =>
      `${subject(path)} must be ${kind} ${
        min === undefined ? `of at most ${max}` : max === undefined ? `of at least ${min}` : `from ${min} to ${max}`
      }.`,
    field,
  ),
  /** A number beyond bounds of which one at least is exclusive (minExclusive, maxExclusive). */
  outOfOpenRange: message(
    400,
    (path: string, min: string | undefined, minExclusive: boolean, max: string | undefined, maxExclusive: boolean) =>
      `${subject(path)} must be a number ${[
        min === undefined ? undefined : minExclusive ? `above ${min}` : `of at least ${min}`,
        max === undefined ? undefined : maxExclusive ? `below ${max}` : `of at most ${max}`,
      ]
        .filter(Boolean)
        .join(' and ')}.`,
    field,
  ),
  notXmlCharacter: message(
    400,
    (path: string, code: string) => `${subject(path)} holds the character U+${code}, which XML cannot carry.`,
    field,
  ),
  notNumber: message(400, (path: string) => `${subject(path)} must be a number.`, field),
  notBoolean: message(400, (path: string) => `${subject(path)} must be true or false.`, field),
  notText: message(400, (path: string, given: 'a list' | 'an object') => `${subject(path)} must be a text, not ${given}.`, field),
  notAllowed: message(
    400,
    (path: string, allowed: readonly unknown[]) =>
      `${subject(path)} must be ${allowed.length === 1 ? '' : 'one of '}${allowed.map((value) => `'${String(value)}'`).join(', ')}.`,
    field,
  ),
  /** A text shorter or longer than its type's length facets; either bound may be absent. */
  badLength: message(
    400,
    (path: string, min: number | undefined, max: number | undefined, unit: 'characters' | 'bytes') =>
      `${subject(path)} must be ${
        min === max ? `${min}` : min === undefined ? `at most ${max}` : max === undefined ? `at least ${min}` : `from ${min} to ${max}`
      } ${unit} long.`,
    field,
  ),
  tooManyDigits: message(
    400,
    (path: string, total: number | undefined, fraction: number | undefined) =>
      `${subject(path)} must have ${[
        total === undefined ? undefined : `at most ${total} digits`,
        fraction === undefined ? undefined : `at most ${fraction} after the decimal point`,
      ]
        .filter(Boolean)
        .join(', ')}.`,
    field,
  ),
  notMatching: message(
    400,
    (path: string, pattern: string) => `${subject(path)} does not match the pattern its type requires: ${pattern}`,
    field,
  ),
  notObject: message(400, (path: string) => `${subject(path)} must be an object.`, field),
  listItemWithSpace: message(
    400,
    (path: string) => `${subject(path)} is an item of a list, whose items are separated by spaces: it cannot hold one.`,
    field,
  ),
  required: message(400, (path: string) => `${subject(path)} is required.`, field),
  /** A required xs:choice (the schema's oneOf): one of its members, and only one, must be given. */
  choice: message(
    400,
    (path: string, members: readonly string[], given: readonly string[]) =>
      `${subject(path)} must have ${given.length === 0 ? 'one' : 'only one'} of the fields ${members.map((key) => `'${key}'`).join(', ')}${given.length === 0 ? '' : ` (it has ${given.map((key) => `'${key}'`).join(' and ')})`}: they are the choices of an xs:choice.`,
    field,
  ),
  /** A list longer or shorter than its element may repeat (maxOccurs, minOccurs). */
  itemCount: message(
    400,
    (path: string, min: number | undefined, max: number | undefined) =>
      `${subject(path)} must have ${min === undefined ? `at most ${max}` : max === undefined ? `at least ${min}` : min === max ? `${min}` : `from ${min} to ${max}`} ${(max ?? min) === 1 ? 'item' : 'items'}.`,
    field,
  ),
  /** null for an element its schema does not make nillable: XML has no way to send it. */
  notNullable: message(400, (path: string) => `${subject(path)} cannot be null (its element is not nillable).`, field),
  /** A member a type open only to attributes (xs:anyAttribute without xs:any) does not name: it is sent as an attribute. */
  notAttributeValue: message(
    400,
    (path: string, given: 'a list' | 'an object') =>
      `${subject(path)} is not a member of its type, which takes other members only as attributes (xs:anyAttribute): it must be a text, a number or true/false, not ${given}.`,
    field,
  ),
  notAttributeName: message(
    400,
    (path: string) =>
      `${subject(path)} is not a member of its type, which takes other members only as attributes (xs:anyAttribute): its name is no XML attribute name.`,
    field,
  ),
  tooDeep: message(400, (path: string, max: number) => `${subject(path)} is nested more than ${max} levels deep.`, field),

  // Calling the SOAP host (call/).
  noEndpoint: message(
    500,
    (version: string) => `The WSDL gives no endpoint address for SOAP ${version}; set the service option 'location'.`,
  ),
  endpointNotUrl: message(
    500,
    (address: string, version: string) =>
      `The WSDL's address for SOAP ${version}, '${address}', is no http(s) URL; set the service option 'location'.`,
  ),
  answerTooLarge: message(500, (url: string, mib: number) => `The answer of ${url} exceeds ${mib} MiB.`),
  hostTimeout: message(503, (host: string, seconds: number) => `The SOAP host ${host} did not answer within ${seconds} s.`),
  hostUnreachable: message(503, (host: string, reason: string) => `The SOAP host ${host} cannot be reached: ${reason}.`),
  answerCutOff: message(
    503,
    (host: string, reason: string) => `The SOAP host ${host} closed the connection before its answer was complete (${reason}).`,
  ),
  /** 500; a gateway status (502-504) makes it a 503 (call/soap-invoker.ts). */
  httpWithoutEnvelope: message(500, (status: number) => `The SOAP service answered HTTP ${status} without a SOAP envelope.`),
  malformedResponse: message(500, (reason: string) => `The SOAP service answered with malformed XML: ${reason}`),
  notAnEnvelope: message(500, (element: string) => `The SOAP service answered with <${element}>, not a SOAP envelope.`),
  responseTooDeep: message(500, (max: number) => `The SOAP service answered with XML nested more than ${max} levels deep.`),
  envelopeWithoutBody: message(500, () => 'The SOAP service answered with an envelope without a Body.'),
  /** The spec's text for a fault (its parts go in the context: call/response-json.ts). */
  fault: message(500, (text: string, code: string) => `${text} [Fault code:${code}]`),

  // The service's WSDL (wsdl/).
  wsdlMissing: message(400, () => "A SOAP service needs 'config.wsdl': an http(s) URL or a WSDL file name."),
  wsdlBadUrl: message(400, (text: string) => `'config.wsdl' is not a valid URL: '${text}'.`),
  wsdlNotUrlOrFile: message(400, (text: string) => `'config.wsdl' must be an http(s) URL or a file name, not '${text}'.`),
  wsdlNotBareName: message(
    400,
    (directory: string, text: string) =>
      `'config.wsdl' of a service created through the API must be an http(s) URL or a bare file name of the platform's ${directory}/ directory, not '${text}'.`,
  ),
  wsdlFileNotFound: message(
    500,
    (text: string, tried: string) => `WSDL file '${text}' not found: looked for ${tried} in the platform directory.`,
  ),
  wsdlImportNotHttp: message(
    500,
    (importedBy: string, location: string) => `'${importedBy}' imports '${location}': a WSDL read from a URL may only import over http(s).`,
  ),
  /**
   * `what`: 'WSDL document', or 'schema file' / 'schema' for an XML Schema that xs:import,
   * xs:include or xs:redefine pulls in; `document`: the URL, or the quoted label of a file;
   * `from`: ` (imported by '...')` or ''.
   */
  wsdlUnreadable: message(
    500,
    (what: string, document: string, from: string, reason: string) => `Could not read the ${what} ${document}${from}: ${reason}.`,
  ),
  wsdl2: message(
    500,
    (label: string) => `'${label}' is a WSDL 2.0 document; Portico reads WSDL 1.1 (wsdl:definitions), as most SOAP stacks do.`,
  ),
  notWsdl: message(
    500,
    (label: string, root: string) => `'${label}' is not a WSDL 1.1 document: its root element is <${root}>, not wsdl:definitions.`,
  ),
  /** `title`: the page's title, or ''. */
  wsdlIsHtml: message(
    500,
    (label: string, title: string) =>
      `'${label}' is an HTML page${title === '' ? '' : ` ('${title}')`}, not a WSDL document: its address serves a web page (an error or login page, or a service's help page) instead of the WSDL.`,
  ),
  wsdlMalformed: message(500, (label: string, reason: string) => `'${label}' is not well-formed XML: ${reason}`),
  /** `max` null: its types chain (extend, restrict or include one another) too deeply. */
  wsdlTooDeep: message(500, (label: string, max: number | null) =>
    max === null
      ? `'${label}' has types that extend, restrict or include one another in chains too long to read.`
      : `'${label}' nests elements more than ${max} levels deep, beyond what Portico reads.`,
  ),
  wsdlTooManyDocuments: message(500, (max: number) => `The WSDL imports more than ${max} documents.`),
  /** A config the API or the build let through: the platform's problem, not the caller's. */
  configNotUsable: message(
    500,
    (service: string, reason: string) => `The configuration of SOAP service '${service}' is not usable: ${reason}`,
  ),
} as const;
