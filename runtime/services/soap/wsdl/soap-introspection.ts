/**
 * From a read WSDL to what the service model holds: the operations of every SOAP 1.1/1.2 port
 * (deduplicated across ports, the SOAP 1.1 binding's details preferred), the JSON Schemas of
 * their request and response messages with the shared definitions, the endpoint of each SOAP
 * version, and warnings for what had to be left out. Nothing here throws for a broken WSDL part:
 * the operation or port is skipped and the warning says why.
 */
import type {
  JsonSchema,
  SoapAddressingModel,
  SoapMessageModel,
  SoapOperationModel,
  SoapServiceModel,
  SoapVersion,
} from '../../../model/platform-model.js';
import { SchemaView } from './json-schema-view.js';
import type { BindingDef, BindingOperation, BodyDef, MessageDef, PortTypeOperation, ServiceDef, WsdlDescription } from './wsdl-reader.js';
import { withMembers, xmlMember } from './json-schema-parts.js';
import { JsonSchemaBuilder } from './xsd-json-schema.js';
import { documentedNames, RESERVED_OPERATION_NAMES } from '../operation-names.js';
import { attribute, qnameKey, type QName } from '../xml-dom.js';

/** What introspection adds to a SOAP service model. */
export type SoapContract = Pick<SoapServiceModel, 'endpoints' | 'operations' | 'definitions' | 'warnings' | 'derivedTypes'>;

/** An operation that cannot be offered; the message says why. */
class Unusable extends Error {}

/** A WSDL name by its QName; WSDLs often leave off the prefix, so a unique local name also matches. */
function lookup<T>(map: Map<string, T>, name: QName | null): T | undefined {
  if (name === null) return undefined;
  const exact = map.get(qnameKey(name));
  if (exact !== undefined) return exact;
  const byLocal = [...map.entries()].filter(([key]) => key.endsWith(`}${name.local}`));
  return byLocal.length === 1 ? byLocal[0][1] : undefined;
}

interface Occurrence {
  binding: BindingDef;
  operation: BindingOperation;
  portType: PortTypeOperation;
  /** The address of the first port of the binding that has one, or null. */
  address: string | null;
}

class OperationBuilder {
  constructor(
    private readonly wsdl: WsdlDescription,
    private readonly schemas: JsonSchemaBuilder,
    private readonly warn: (message: string) => void,
  ) {}

  operation(occurrences: Occurrence[]): Omit<SoapOperationModel, 'name' | 'simpleInput'> {
    const primary = occurrences.find((o) => o.binding.version === '1.1') ?? occurrences[0];
    const { binding, operation, portType } = primary;
    const style = operation.style ?? binding.style;
    if (portType.input === null) throw new Unusable('it has no input message (a notification operation)');
    if (portType.solicit) throw new Unusable('its output comes before its input (a solicit-response operation, which the service starts)');
    const input = this.message(operation.name, portType.input, operation.input, style, false);
    const output = portType.output === null ? null : this.message(operation.name, portType.output, operation.output, style, true);
    const faultDetail = this.faultDetail(operation.name, portType.faults);
    return {
      sourceName: operation.name,
      description: portType.documentation,
      style,
      use: operation.input?.use ?? 'literal',
      soapAction: httpAction(primary),
      ...soapActions(occurrences),
      soapVersions: [...new Set(occurrences.map((o) => o.binding.version as SoapVersion))].sort(),
      ...addressing(occurrences),
      input,
      output,
      ...(faultDetail === null ? {} : { faultDetail }),
    };
  }

  /**
   * The detail of the operation's declared faults: each fault part an optional member (a fault
   * answers with one of them). A fault whose message or element is not defined is left out with
   * a warning: its detail is then read as it comes, as any detail the WSDL does not declare.
   */
  private faultDetail(operation: string, faults: readonly QName[]): JsonSchema | null {
    const members = new Map<string, { key: string; schema: JsonSchema; required: boolean }>();
    for (const name of faults) {
      const message = lookup(this.wsdl.messages, name);
      if (message === undefined) {
        this.warn(`Fault message '${name.local}' of operation '${operation}' is not defined; its detail is read untyped.`);
        continue;
      }
      for (const part of message.parts) {
        try {
          const member = this.partMember(part);
          if (!members.has(member.key)) members.set(member.key, { ...member, required: false });
        } catch (error) {
          if (!(error instanceof Unusable)) throw error;
          this.warn(`Fault message '${name.local}' of operation '${operation}': ${error.message}; its detail is read untyped.`);
        }
      }
    }
    return members.size === 0 ? null : objectSchema([...members.values()]);
  }

  private message(operation: string, name: QName, body: BodyDef | null, style: 'document' | 'rpc', isOutput: boolean): SoapMessageModel {
    const message = lookup(this.wsdl.messages, name);
    if (message === undefined) throw new Unusable(`its message '${name.local}' is not defined`);
    const parts = this.bodyParts(message, body);
    if (style === 'rpc') {
      const members = parts.map((part) => ({ ...this.partMember(part), required: true }));
      return {
        wrapper: { name: isOutput ? `${operation}Response` : operation, namespace: body?.namespace ?? '' },
        schema: objectSchema(members),
      };
    }
    if (parts.length === 1 && parts[0].element !== null) {
      const element = this.element(parts[0].element, parts[0].name);
      const content = this.schemas.elementContentSchema(element);
      if (this.schemas.isObject(content)) return { wrapper: { name: element.name.local, namespace: element.name.ns }, schema: content };
    }
    return { wrapper: null, schema: objectSchema(parts.map((part) => this.partMember(part))) };
  }

  /** The parts the SOAP body carries: soap:body `parts` (all by default) minus those bound to headers. */
  private bodyParts(message: MessageDef, body: BodyDef | null): MessageDef['parts'] {
    const headers = new Set((body?.headerParts ?? []).filter((h) => h.message.local === message.name.local).map((h) => h.part));
    return message.parts.filter((part) => (body?.parts == null || body.parts.includes(part.name)) && !headers.has(part.name));
  }

  private element(name: QName, part: string) {
    const element = this.wsdl.schemas.find('element', name);
    if (element === undefined) throw new Unusable(`its part '${part}' names the element '${name.local}', which is not defined`);
    return element;
  }

  /** A part as a member of the message object: an element part under the element's name, a typed part under its own. */
  private partMember(part: MessageDef['parts'][number]): { key: string; schema: JsonSchema; required: boolean } {
    if (part.element !== null) {
      const element = this.element(part.element, part.name);
      const nillable = attribute(element.node, 'nillable') === 'true';
      const schema = withMembers(this.schemas.elementContentSchema(element), {
        nullable: nillable || undefined,
        xml: xmlMember(element.name.ns, false),
      });
      return { key: element.name.local, schema, required: !nillable };
    }
    if (part.type === null) this.warn(`Part '${part.name}' names neither an element nor a type; any value is accepted.`);
    return { key: part.name, schema: part.type === null ? {} : this.schemas.typeSchema(part.type), required: true };
  }
}

/**
 * The action a call sends in HTTP (SOAPAction, or the SOAP 1.2 content type's action): the
 * binding's soapAction, else the input's stated WS-Addressing action (hosts such as WCF and
 * JAX-WS dispatch on it), else none.
 */
function httpAction({ operation, portType }: Occurrence): string {
  return operation.soapAction !== '' ? operation.soapAction : (portType.action ?? '');
}

/** The WS-Addressing headers of each SOAP version whose (first) binding uses WS-Addressing. */
function addressing(occurrences: Occurrence[]): Pick<SoapOperationModel, 'addressing'> {
  const byVersion: Partial<Record<SoapVersion, SoapAddressingModel>> = {};
  const seen = new Set<SoapVersion>();
  for (const { binding, operation, portType } of occurrences) {
    const version = binding.version as SoapVersion;
    if (seen.has(version)) continue;
    seen.add(version);
    if (binding.addressing === null) continue;
    const action = portType.action ?? (operation.soapAction !== '' ? operation.soapAction : portType.defaultAction);
    byVersion[version] = { namespace: binding.addressing.namespace, action, required: binding.addressing.required };
  }
  return Object.keys(byVersion).length > 0 ? { addressing: byVersion } : {};
}

/** Each version's soapAction (its first binding's), when the versions' bindings give different ones. */
function soapActions(occurrences: Occurrence[]): Pick<SoapOperationModel, 'soapActions'> {
  const actions: Partial<Record<SoapVersion, string>> = {};
  for (const occurrence of occurrences) actions[occurrence.binding.version as SoapVersion] ??= httpAction(occurrence);
  return new Set(Object.values(actions)).size > 1 ? { soapActions: actions } : {};
}

/** An operation's input and output messages: one name with others is another operation. */
function messagesOf(operation: PortTypeOperation): string {
  return `${operation.input === null ? '' : qnameKey(operation.input)} ${operation.output === null ? '' : qnameKey(operation.output)}`;
}

/**
 * The addresses of an operation's ports by SOAP version, when one differs from the service's
 * (the first port's of that version): a WSDL may put the ports of different bindings at
 * different addresses, and each operation must go to a port that offers it.
 */
function ownEndpoints(
  occurrences: Occurrence[],
  service: Partial<Record<SoapVersion, string>>,
): Partial<Record<SoapVersion, string>> | null {
  const own: Partial<Record<SoapVersion, string>> = {};
  for (const { binding, address } of occurrences) if (address !== null) own[binding.version as SoapVersion] ??= address;
  const versions = Object.keys(own) as SoapVersion[];
  return versions.some((version) => own[version] !== service[version]) ? own : null;
}

function objectSchema(members: Array<{ key: string; schema: JsonSchema; required: boolean }>): JsonSchema {
  const schema: JsonSchema = { type: 'object', properties: Object.fromEntries(members.map((m) => [m.key, m.schema])) };
  const required = members.filter((m) => m.required).map((m) => m.key);
  if (required.length > 0) schema.required = required;
  return schema;
}

/**
 * Whether every member of the input is a scalar, or a repeated scalar (a query parameter given
 * once per value), so that query parameters can carry it; not one repeated with others in a group
 * (their order could not be told).
 */
export function isSimpleInput(view: SchemaView, schema: JsonSchema): boolean {
  const shape = view.shape(schema);
  return (
    shape.kind === 'object' &&
    !shape.open &&
    shape.members.every((member) => member.group === undefined && view.shape(member.schema).kind === 'scalar' && member.key !== '_')
  );
}

/**
 * The WSDL's services; when it defines none but has SOAP bindings (an interface-only WSDL, as
 * ONVIF and split WCF contracts publish), one service whose ports are those bindings, without
 * an address: calls go to the `location` option.
 */
function servicesOf(wsdl: WsdlDescription, warnings: Set<string>): ServiceDef[] {
  if (wsdl.services.length > 0) return wsdl.services;
  const soapBindings = [...wsdl.bindings.values()].filter((binding) => binding.version !== null);
  if (soapBindings.length === 0) return [];
  warnings.add(
    "The WSDL defines no service (no wsdl:service, so no endpoint address): its SOAP bindings are offered, and calls go to the service option 'location'.",
  );
  return [{ name: '', ports: soapBindings.map((binding) => ({ name: binding.name.local, binding: binding.name, address: null })) }];
}

/**
 * The operations of the WSDL's SOAP ports. `reserved` are definition names to avoid (the shared
 * OpenAPI components).
 */
export function describeOperations(wsdl: WsdlDescription, reserved: Iterable<string> = []): SoapContract {
  const warnings = new Set<string>();
  const endpoints: Partial<Record<SoapVersion, string>> = {};
  // By operation name, the operations of that name: an overload across port types (other messages) is another.
  const byName = new Map<string, Occurrence[][]>();
  /** Operations a binding repeats: their overload is told once, for the binding. */
  const repeatedInBinding = new Set<string>();
  for (const service of servicesOf(wsdl, warnings)) {
    for (const port of service.ports) {
      const binding = lookup(wsdl.bindings, port.binding);
      // The ports servicesOf makes of bare bindings belong to no named service.
      const where = service.name === '' ? `Binding '${port.name}'` : `Port '${port.name}' of service '${service.name}'`;
      if (binding === undefined) {
        warnings.add(`${where} names the binding '${port.binding?.local ?? ''}', which is not defined; the port is left out.`);
        continue;
      }
      if (binding.version === null) {
        if (!binding.isHttp)
          warnings.add(`${where} uses the binding '${binding.name.local}', which is neither SOAP 1.1 nor SOAP 1.2; the port is left out.`);
        continue;
      }
      const portType = lookup(wsdl.portTypes, binding.portType);
      if (portType === undefined) {
        warnings.add(
          `${where}: the port type '${binding.portType?.local ?? ''}' of binding '${binding.name.local}' is not defined; the port is left out.`,
        );
        continue;
      }
      const address = port.address !== null && port.address !== '' ? port.address : null;
      if (address !== null) endpoints[binding.version] ??= address;
      for (const operation of binding.operations) {
        const portTypeOperation = portType.get(operation.name);
        if (portTypeOperation === undefined) {
          warnings.add(`Operation '${operation.name}' of binding '${binding.name.local}' is not in its port type; it is left out.`);
          continue;
        }
        const variants = byName.get(operation.name) ?? [];
        byName.set(operation.name, variants);
        const signature = messagesOf(portTypeOperation);
        let list = variants.find((variant) => messagesOf(variant[0].portType) === signature);
        if (list === undefined) {
          list = [];
          variants.push(list);
        }
        const known = list.find((o) => o.binding === binding);
        if (known === undefined) list.push({ binding, operation, portType: portTypeOperation, address });
        else if (known.operation !== operation) {
          repeatedInBinding.add(operation.name);
          warnings.add(
            `Operation '${operation.name}' appears more than once in binding '${binding.name.local}' (an overload, which one JSON name cannot tell apart, or a copy): only the first is offered.`,
          );
        } else known.address ??= address;
      }
    }
  }
  for (const { portType, operation } of wsdl.overloads)
    if (!repeatedInBinding.has(operation))
      warnings.add(
        `Operation '${operation}' appears more than once in port type '${portType}' (an overload, which one JSON name cannot tell apart): only the first is offered.`,
      );
  // Encoded messages name each value's type in xsi:type, so their schemas keep the type names.
  const encoded = [...byName.values()].some((variants) =>
    variants.flat().some(({ operation }) => operation.input?.use === 'encoded' || operation.output?.use === 'encoded'),
  );
  const schemas = new JsonSchemaBuilder(wsdl.schemas, (message) => warnings.add(message), encoded);
  const builder = new OperationBuilder(wsdl, schemas, (message) => warnings.add(message));
  const built: Array<{ preferred: string; operation: Omit<SoapOperationModel, 'name' | 'simpleInput'> }> = [];
  for (const [name, variants] of [...byName].sort(([a], [b]) => compareNames(a, b))) {
    for (const [index, occurrences] of variants.entries()) {
      // An operation of the same name with other messages (another port type's): the same name with a suffix.
      const preferred = index === 0 ? name : `${name}_${index + 1}`;
      if (index > 0)
        warnings.add(
          `Operation '${name}' of binding '${occurrences[0].binding.name.local}' takes other messages than the one of binding '${variants[0][0].binding.name.local}'; it is offered as '${preferred}'.`,
        );
      try {
        const own = ownEndpoints(occurrences, endpoints);
        built.push({ preferred, operation: { ...builder.operation(occurrences), ...(own === null ? {} : { endpoints: own }) } });
      } catch (error) {
        if (!(error instanceof Unusable)) throw error;
        warnings.add(`Operation '${preferred}' is left out: ${error.message}.`);
      }
    }
  }
  if (built.length === 0) warnings.add('The WSDL offers no usable SOAP 1.1 or SOAP 1.2 operation, so the service has none.');
  const derived = schemas.addDerivedTypes();
  const definitions = schemas.finish(reserved);
  const derivedTypes = Object.fromEntries(derived.map((xmlName) => [xmlName, schemas.definitionName(xmlName)!]));
  const view = new SchemaView(definitions);
  // Names that differ only in case would be one API name: later ones get a suffix.
  const taken = new Map<string, string>();
  const operations = built.map(({ preferred, operation }): SoapOperationModel => {
    let name = preferred;
    for (let suffix = 2; taken.has(name.toLowerCase()); suffix++) name = `${preferred}_${suffix}`;
    if (name !== preferred)
      warnings.add(
        `Operation '${preferred}' differs from '${taken.get(preferred.toLowerCase())}' only in case, which operation names in the API do not tell apart: it is offered as '${name}' (a call spelling '${preferred}' exactly still reaches it).`,
      );
    taken.set(name.toLowerCase(), name);
    return { name, ...operation, simpleInput: isSimpleInput(view, operation.input.schema) };
  });
  // An operation named as one of the service's own routes (`_spec`): GET of that name is the route.
  const documented = documentedNames(operations.map((operation) => operation.name));
  operations.forEach((operation, index) => {
    if (RESERVED_OPERATION_NAMES.has(operation.name))
      warnings.add(
        `Operation '${operation.name}' has the name of the service's route GET /${operation.name}, which serves the service's OpenAPI document: GET reaches the operation as '/${documented[index]}' (its documented name), POST as '/${operation.name}' too.`,
      );
  });
  return {
    endpoints,
    operations,
    definitions,
    warnings: [...warnings].sort(),
    ...(derived.length === 0 ? {} : { derivedTypes }),
  };
}

/** Lower-cased name, then the name itself: the order of the operation list. */
export function compareNames(a: string, b: string): number {
  const [la, lb] = [a.toLowerCase(), b.toLowerCase()];
  return la < lb ? -1 : la > lb ? 1 : a < b ? -1 : a > b ? 1 : 0;
}
