/**
 * XML Schema -> JSON Schema (OpenAPI 3.0 dialect), for the JSON shape Portico gives SOAP
 * messages: an element's children and attributes are members of one object (attributes flagged
 * `xml.attribute`), simple content beside attributes is the member `_`, `maxOccurs > 1` is an
 * array, `nillable` is `nullable`, minOccurs >= 1 (not nillable) and use="required" are
 * `required` (unless a fixed or default value stands in: then it is the member's `default`; a
 * nillable element that must occur has the default null), enumerations are `enum`, a choice of required branches is a `oneOf` of `required`,
 * and an extension is an `allOf` of its base and its own members. Qualified names carry their
 * namespace in `xml`, which the request writer uses.
 *
 * Named complex types (and global elements referenced by `ref`) become shared definitions
 * referenced by `$ref`, which is how recursive types end; so do named enumerations, which large
 * WSDLs use thousands of times; everything else is inlined. Definitions
 * are built one after another, not inside each other, so that a chain of types thousands long
 * (large generated WSDLs) does not exhaust the stack. Definition names are the types' local
 * names, made unique in a fixed order once all are known.
 */
import type { JsonSchema } from '../../../model/platform-model.js';
import { uniqueNamer } from '../../../openapi/code-identifiers.js';
import {
  builtinSchema,
  DEFINITION_REF,
  FRACTION_DIGITS,
  LIST,
  ObjectModel,
  REPEATED_GROUP,
  TOTAL_DIGITS,
  withMembers,
  XML_TYPE,
  xmlMember,
} from './json-schema-parts.js';
import type { SchemaContext, XsdComponent, XsdIndex } from './xsd-index.js';
import { xsdPattern } from './xsd-pattern.js';
import { attribute, childElements, isXsdNamespace, qnameKey, type QName } from '../xml-dom.js';

const SOAP_ENCODING = new Set(['http://schemas.xmlsoap.org/soap/encoding/', 'http://www.w3.org/2003/05/soap-encoding']);
const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/';

function occurs(node: Element, name: 'minOccurs' | 'maxOccurs'): number {
  const value = attribute(node, name);
  if (value === undefined) return 1;
  return value === 'unbounded' ? Infinity : Number(value) || 0;
}

function annotation(node: Element): string | undefined {
  const text = childElements(node)
    .filter((child) => child.localName === 'annotation')
    .flatMap((child) => childElements(child).filter((doc) => doc.localName === 'documentation'))
    .map((doc) => (doc.textContent ?? '').replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join(' ');
  return text === '' ? undefined : text;
}

const xsdChildren = (node: Element) => childElements(node).filter((child) => isXsdNamespace(child.namespaceURI));
const xsdChild = (node: Element, local: string) => xsdChildren(node).find((child) => child.localName === local);

/** The `fixed` or else `default` value of an element or attribute declaration. */
function presetValue(node: Element): string | undefined {
  return attribute(node, 'fixed') ?? attribute(node, 'default');
}

/** A fixed or default value as the JSON value of its schema's type. */
function typedPreset(value: string, schema: JsonSchema): unknown {
  const trimmed = value.trim();
  if ((schema.type === 'integer' || schema.type === 'number') && trimmed !== '' && Number.isFinite(Number(trimmed))) return Number(trimmed);
  if (schema.type === 'boolean') return trimmed === 'true' || trimmed === '1';
  return value;
}

/**
 * A fixed value is the one value allowed: an enumeration of it (JSON Schema's way of saying so,
 * which the request writer checks). Not on a type that is no scalar, nor one that may be null.
 */
function withFixed(schema: JsonSchema, fixed: string | undefined): JsonSchema {
  if (fixed === undefined || '$ref' in schema || Array.isArray(schema.allOf) || schema.nullable === true) return schema;
  if (schema.type === 'object' || schema.type === 'array' || schema.properties !== undefined) return schema;
  return { ...schema, enum: [typedPreset(fixed, schema)] };
}

/** The text of a simpleContent type and its attributes. */
interface SimpleContentParts {
  text: JsonSchema;
  attributes: ObjectModel;
}

/** How the particles above an element repeat or may be left out. */
interface Occurrence {
  repeated: boolean;
  optional: boolean;
  /** The repeated sequence, choice or group the element is in, when one is (REPEATED_GROUP). */
  group?: number;
}

interface Definition {
  kind: XsdComponent['kind'];
  preferred: string;
  sortKey: string;
  schema: JsonSchema | null;
  refs: JsonSchema[];
  /** The name `finish` gives it. */
  name?: string;
}

/**
 * Converts schema components to JSON Schemas. Call `finish` once every schema is built: it names
 * the definitions and fills in the `$ref`s.
 */
export class JsonSchemaBuilder {
  private readonly definitions = new Map<string, Definition>();
  /** Definitions referenced but not built yet, with how to build them. */
  private readonly pending: Array<{ definition: Definition; build: () => JsonSchema }> = [];
  /** The definition of each `$ref` handed out. */
  private readonly targets = new WeakMap<JsonSchema, Definition>();
  /** Simple types and groups being expanded, against cycles. */
  private readonly expanding = new Set<string>();
  /** Whether a message member is of xsd:anyType, whose value may be of any complex type named in xsi:type. */
  private anyTypeUsed = false;
  /** The complex types on a derivation cycle, once first needed. */
  private cycles: Set<string> | undefined;
  /** The repeated model groups met so far (REPEATED_GROUP). */
  private groups = 0;
  /** Each named simple type's schema, built once (`simpleType{ns}local`). */
  private readonly simpleTypes = new Map<string, JsonSchema>();
  /** How many named simple types are being expanded (one built inside a derivation cycle is not kept). */
  private simpleDepth = 0;
  /** The global elements naming each head (`{ns}local`) in substitutionGroup, once first needed. */
  private substitutionGroups: Map<string, XsdComponent[]> | undefined;

  /**
   * `typeNames`: record the XML Schema type of built-ins, named simple types and complex types in
   * `x-xml-type` (json-schema-parts.ts: XML_TYPE), for encoded operations.
   */
  constructor(
    private readonly index: XsdIndex,
    private readonly warn: (message: string) => void,
    private readonly typeNames = false,
  ) {}

  /**
   * `schema` with its XML Schema type name, when type names are recorded. A reference (a type
   * that extends another and adds nothing) is wrapped, not copied: `finish` fills in only the
   * references it handed out.
   */
  private named(schema: JsonSchema, name: QName): JsonSchema {
    return this.typeNames ? withMembers(schema, { [XML_TYPE]: qnameKey(name) }) : schema;
  }

  /**
   * JSON Schema of a type by name: built-ins and simple types inline, complex types and
   * enumerations by reference (an enumeration of thousands of values is used thousands of times
   * in large WSDLs: one definition keeps the model, the OpenAPI document and the TypeScript types
   * small). `inline`: an enumeration's own schema too (a restriction narrows a copy of its base).
   */
  typeSchema(name: QName, context?: SchemaContext, inline = false): JsonSchema {
    if (isXsdNamespace(name.ns)) {
      if (name.local === 'anyType') this.anyTypeUsed = true;
      // A value of anyType says its own type (request-xml.ts: anyScalarType).
      return name.local === 'anyType' ? builtinSchema(name.local) : this.named(builtinSchema(name.local), name);
    }
    // Named, so that a part or element of this type is one array element (its items inside), not a repeated one.
    if (SOAP_ENCODING.has(name.ns) && name.local === 'Array') return { type: 'array', items: {}, [XML_TYPE]: qnameKey(name) };
    const complex = this.index.find('complexType', name, context);
    if (complex) return this.reference(complex, () => this.named(this.complexTypeSchema(complex.node, complex.context), name));
    const simple = this.index.find('simpleType', name, context);
    if (simple) {
      const schema = this.namedSimpleType(simple);
      return inline || !Array.isArray(schema.enum) ? schema : this.sharedSimpleType(simple, schema);
    }
    if (name.ns === '') return builtinSchema(name.local);
    this.warn(`Type '${name.local}' of namespace '${name.ns}' is not defined; any value is accepted.`);
    return {};
  }

  /** JSON Schema of a global element's content (its type), inlined. */
  elementContentSchema(element: XsdComponent): JsonSchema {
    return this.declaredType(element.node, element.context);
  }

  /** Whether a schema stands for a JSON object (a complex type with members), following references. */
  isObject(schema: JsonSchema, seen = new Set<Definition>()): boolean {
    this.buildPending();
    if (typeof schema.$ref === 'string') {
      const target = this.targets.get(schema);
      if (target === undefined || seen.has(target)) return false;
      seen.add(target);
      return target.schema !== null && this.isObject(target.schema, seen);
    }
    // An object's allOf may hold its required choices (ObjectModel.toSchema); an extension's, its base.
    if (schema.type === 'object') return true;
    return Array.isArray(schema.allOf) && (schema.allOf as JsonSchema[]).some((member) => this.isObject(member, seen));
  }

  /**
   * Names the definitions (local names, made unique avoiding `reserved`, in the order of their
   * local name then namespace), fills in every `$ref`, and returns the definitions by name.
   */
  finish(reserved: Iterable<string>): Record<string, JsonSchema> {
    this.buildPending();
    const namer = uniqueNamer(reserved);
    const entries = [...this.definitions.values()].sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
    const named: Array<[string, JsonSchema]> = [];
    for (const definition of entries) {
      const name = namer(definition.preferred.replace(/[^A-Za-z0-9._-]/g, '_') || 'Type');
      definition.name = name;
      for (const ref of definition.refs) ref.$ref = `${DEFINITION_REF}${name}`;
      named.push([name, definition.schema ?? {}]);
    }
    return Object.fromEntries(named.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /**
   * Adds the complex types derived (by extension or restriction, at any depth) from those defined
   * so far, which a reply may name in xsi:type; when a member is of xsd:anyType, every complex type. Returns their XML names (`{ns}local`); their
   * definition names are known after `finish` (`definitionName`).
   */
  addDerivedTypes(): string[] {
    this.buildPending();
    const derived = new Map<string, XsdComponent[]>();
    for (const type of this.index.all('complexType')) {
      const content = xsdChild(type.node, 'complexContent') ?? xsdChild(type.node, 'simpleContent');
      const derivation = content === undefined ? undefined : (xsdChild(content, 'extension') ?? xsdChild(content, 'restriction'));
      const base = derivation === undefined ? undefined : attribute(derivation, 'base');
      const baseType = base === undefined ? undefined : this.index.lookup('complexType', derivation!, base, type.context);
      if (baseType === undefined || baseType === type) continue;
      const key = `complexType${qnameKey(baseType.name)}`;
      const siblings = derived.get(key);
      if (siblings === undefined) derived.set(key, [type]);
      else siblings.push(type);
    }
    const added = new Set<string>();
    // A value of xsd:anyType (Axis2's Object returns) may be of any complex type its xsi:type names.
    if (this.anyTypeUsed)
      for (const type of this.index.all('complexType')) {
        added.add(qnameKey(type.name));
        this.typeSchema(type.name, type.context);
      }
    const queue = [...this.definitions.keys()];
    for (let key = queue.pop(); key !== undefined; key = queue.pop()) {
      for (const type of derived.get(key) ?? []) {
        if (added.has(qnameKey(type.name))) continue;
        added.add(qnameKey(type.name));
        queue.push(`complexType${qnameKey(type.name)}`);
        this.typeSchema(type.name, type.context);
      }
    }
    this.buildPending();
    return [...added].sort();
  }

  /** The definition name of a complex type by XML name (`{ns}local`), once `finish` has named it. */
  definitionName(xmlName: string): string | undefined {
    return this.definitions.get(`complexType${xmlName}`)?.name;
  }

  /** A named simple type's schema, built once (shared by its uses, which copy it before changing it). */
  private namedSimpleType(simple: XsdComponent): JsonSchema {
    const key = `simpleType${qnameKey(simple.name)}`;
    const known = this.simpleTypes.get(key);
    if (known !== undefined) return known;
    this.simpleDepth++;
    let schema: JsonSchema;
    try {
      schema = this.named(
        this.guarded(key, () => this.simpleTypeSchema(simple.node, simple.context)),
        simple.name,
      );
    } finally {
      this.simpleDepth--;
    }
    // One built while another is expanded may stand on a cut derivation cycle: kept only at the top.
    if (this.simpleDepth === 0) this.simpleTypes.set(key, schema);
    return schema;
  }

  /** A reference to a named simple type's shared definition, its schema already built. */
  private sharedSimpleType(simple: XsdComponent, schema: JsonSchema): JsonSchema {
    const key = `simpleType${qnameKey(simple.name)}`;
    if (!this.definitions.has(key)) this.definitions.set(key, this.newDefinition(simple, schema));
    return this.referenceTo(this.definitions.get(key)!);
  }

  /**
   * The schema of the simple type a (wrapped) reference names, where the member needs it itself: a
   * fixed value narrows it to one value, a default value is typed by it. Other schemas as they are.
   */
  private inlined(schema: JsonSchema): JsonSchema {
    const parts = Array.isArray(schema.allOf) ? (schema.allOf as JsonSchema[]) : [];
    const ref = typeof schema.$ref === 'string' ? schema : parts.length === 1 ? parts[0] : undefined;
    const target = ref === undefined ? undefined : this.targets.get(ref);
    if (target?.kind !== 'simpleType' || target.schema === null) return schema;
    const { allOf: _, ...wrapper } = schema;
    return ref === schema ? target.schema : { ...target.schema, ...wrapper };
  }

  private newDefinition(component: XsdComponent, schema: JsonSchema | null): Definition {
    return {
      kind: component.kind,
      preferred: component.name.local,
      sortKey: `${component.name.local}\u0000${component.kind}\u0000${component.name.ns}`,
      schema,
      refs: [],
    };
  }

  private referenceTo(definition: Definition): JsonSchema {
    const ref: JsonSchema = { $ref: '' };
    definition.refs.push(ref);
    this.targets.set(ref, definition);
    return ref;
  }

  private reference(component: XsdComponent, build: () => JsonSchema): JsonSchema {
    const key = `${component.kind}${qnameKey(component.name)}`;
    let definition = this.definitions.get(key);
    if (definition === undefined) {
      definition = this.newDefinition(component, null);
      this.definitions.set(key, definition);
      this.pending.push({ definition, build });
    }
    return this.referenceTo(definition);
  }

  /** Builds the definitions referenced so far; those they reference join the queue. */
  private buildPending(): void {
    for (let next = this.pending.pop(); next !== undefined; next = this.pending.pop()) next.definition.schema = next.build();
  }

  private guarded(key: string, build: () => JsonSchema): JsonSchema {
    if (this.expanding.has(key)) return {};
    this.expanding.add(key);
    try {
      return build();
    } finally {
      this.expanding.delete(key);
    }
  }

  /** The type an element declaration gives its content: `type`, an inline type, or any. */
  private declaredType(node: Element, context: SchemaContext): JsonSchema {
    const type = attribute(node, 'type');
    if (type !== undefined) return this.typeSchema(this.index.qname(node, type, context), context);
    const complex = xsdChild(node, 'complexType');
    if (complex) return this.complexTypeSchema(complex, context);
    const simple = xsdChild(node, 'simpleType');
    if (simple) return this.simpleTypeSchema(simple, context);
    return {};
  }

  private simpleTypeSchema(node: Element, context: SchemaContext): JsonSchema {
    const description = annotation(node);
    const restriction = xsdChild(node, 'restriction');
    let schema: JsonSchema = { type: 'string' };
    if (restriction) {
      const base = attribute(restriction, 'base');
      const inline = xsdChild(restriction, 'simpleType');
      const baseSchema =
        base !== undefined
          ? this.typeSchema(this.index.qname(restriction, base, context), context, true)
          : inline
            ? this.simpleTypeSchema(inline, context)
            : {};
      schema = '$ref' in baseSchema ? {} : { ...baseSchema };
      this.applyFacets(schema, restriction);
      // hexBinary's lengths count octets, each two characters of the JSON text.
      const baseName = base === undefined ? undefined : this.index.qname(restriction, base, context);
      if (baseName !== undefined && isXsdNamespace(baseName.ns) && baseName.local === 'hexBinary')
        for (const key of ['minLength', 'maxLength'] as const)
          if (typeof schema[key] === 'number') schema[key] = (schema[key] as number) * 2;
    }
    // A list is its items' text separated by spaces; the request writer also takes a JSON array of them.
    if (xsdChild(node, 'list') !== undefined) schema = { type: 'string', [LIST]: true };
    return description === undefined ? schema : { ...schema, description };
  }

  private applyFacets(schema: JsonSchema, restriction: Element): void {
    const facets = xsdChildren(restriction);
    const enumeration = facets.filter((facet) => facet.localName === 'enumeration').map((facet) => attribute(facet, 'value') ?? '');
    if (enumeration.length > 0) {
      // Values of the type's JSON type, each once: '01' and '1' are one integer, '1' and 'true' one boolean.
      const numeric = schema.type === 'integer' || schema.type === 'number';
      const values = enumeration.map((value) =>
        numeric && value.trim() !== '' && Number.isFinite(Number(value))
          ? Number(value)
          : schema.type === 'boolean'
            ? typedPreset(value, schema)
            : value,
      );
      schema.enum = [...new Set(values)];
    }
    // A value must match one of a restriction's patterns, and its base's too (untranslatable ones are not checked).
    const patterns = facets.filter((facet) => facet.localName === 'pattern').map((facet) => attribute(facet, 'value') ?? '');
    const pattern = patterns.length === 0 ? null : xsdPattern(patterns, typeof schema.pattern === 'string' ? schema.pattern : undefined);
    if (pattern !== null) schema.pattern = pattern;
    for (const facet of facets) {
      const value = Number(attribute(facet, 'value'));
      if (!Number.isFinite(value)) continue;
      if (schema.type === 'string' && ['length', 'minLength', 'maxLength'].includes(facet.localName)) {
        if (facet.localName !== 'maxLength') schema.minLength = value;
        if (facet.localName !== 'minLength') schema.maxLength = value;
      }
      // Digits limit decimals and integers (not float and double, which have a format); a restriction only narrows its base's.
      const digits = facet.localName === 'totalDigits' ? TOTAL_DIGITS : facet.localName === 'fractionDigits' ? FRACTION_DIGITS : undefined;
      if (digits !== undefined && (schema.type === 'integer' || (schema.type === 'number' && schema.format === undefined)))
        schema[digits] = typeof schema[digits] === 'number' ? Math.min(schema[digits] as number, value) : value;
      if ((schema.type === 'integer' || schema.type === 'number') && /^m(in|ax)(In|Ex)clusive$/.test(facet.localName)) {
        // OpenAPI 3.0: an exclusive bound is the bound with exclusiveMinimum/exclusiveMaximum true.
        const [bound, exclusive] = facet.localName.startsWith('min') ? ['minimum', 'exclusiveMinimum'] : ['maximum', 'exclusiveMaximum'];
        schema[bound] = value;
        if (facet.localName.endsWith('Exclusive')) schema[exclusive] = true;
        else delete schema[exclusive];
      }
    }
  }

  private complexTypeSchema(node: Element, context: SchemaContext): JsonSchema {
    const description = annotation(node);
    const simpleContent = xsdChild(node, 'simpleContent');
    if (simpleContent) return this.simpleContentSchema(simpleContent, context, description);
    const complexContent = xsdChild(node, 'complexContent');
    if (complexContent) return this.complexContentSchema(complexContent, context, description);
    // A type whose content is one named group (how a group that contains itself is written) is
    // that group's shared definition, so that the recursion ends in a $ref.
    const group = this.soleGroup(node, context);
    if (group !== undefined && description === undefined) return this.reference(group, () => this.groupSchema(group));
    const model = new ObjectModel();
    // Mixed content: the text between the child elements is the member `_`, as beside attributes.
    if (attribute(node, 'mixed') === 'true') model.add('_', { type: 'string' }, false, false);
    this.collect(node, context, model);
    return model.toSchema(description);
  }

  /** The group a complex type's content is, when it is only a reference to one that occurs once (no attributes, not mixed). */
  private soleGroup(node: Element, context: SchemaContext): XsdComponent | undefined {
    const content = xsdChildren(node).filter((child) => child.localName !== 'annotation');
    const [only] = content;
    if (content.length !== 1 || only.localName !== 'group' || attribute(node, 'mixed') === 'true') return undefined;
    if (occurs(only, 'minOccurs') !== 1 || occurs(only, 'maxOccurs') !== 1) return undefined;
    const ref = attribute(only, 'ref');
    return ref === undefined ? undefined : this.index.lookup('group', only, ref, context);
  }

  /** A group's members as an object. */
  private groupSchema(group: XsdComponent): JsonSchema {
    const model = new ObjectModel();
    this.guarded(`group${qnameKey(group.name)}`, () => {
      for (const child of xsdChildren(group.node)) this.particle(child, group.context, model, { repeated: false, optional: false });
      return {};
    });
    return model.toSchema();
  }

  /** Adds the particles and attributes declared directly in `node` to `model`. */
  private collect(
    node: Element,
    context: SchemaContext,
    model: ObjectModel,
    occurrence: Occurrence = { repeated: false, optional: false },
  ): void {
    for (const child of xsdChildren(node)) {
      if (['sequence', 'all', 'choice', 'group', 'element', 'any'].includes(child.localName))
        this.particle(child, context, model, occurrence);
      else this.attributeMember(child, context, model);
    }
  }

  private particle(node: Element, context: SchemaContext, model: ObjectModel, outer: Occurrence): void {
    // maxOccurs="0": the particle may not occur (a restriction's way of removing it), so it is no member.
    if (occurs(node, 'maxOccurs') === 0) return;
    const occurrence: Occurrence = {
      repeated: outer.repeated || occurs(node, 'maxOccurs') > 1,
      optional: outer.optional || occurs(node, 'minOccurs') === 0,
    };
    // The elements of a repeated model group repeat together (key, value, key, value): they are marked as one group.
    const group = outer.group ?? (node.localName !== 'element' && occurs(node, 'maxOccurs') > 1 ? ++this.groups : undefined);
    if (group !== undefined) occurrence.group = group;
    switch (node.localName) {
      case 'element':
        this.elementMember(node, context, model, occurrence, outer.repeated);
        return;
      case 'any':
        model.open = true;
        model.anyElements = true;
        return;
      case 'sequence':
      case 'all':
        for (const child of xsdChildren(node)) this.particle(child, context, model, occurrence);
        return;
      case 'choice':
        this.choice(node, context, model, occurrence);
        return;
      case 'group': {
        const ref = attribute(node, 'ref');
        const group = ref === undefined ? undefined : this.index.lookup('group', node, ref, context);
        if (group === undefined) {
          if (ref !== undefined) this.warn(`Group '${ref}' is not defined; its elements are left out.`);
          return;
        }
        const key = `group${qnameKey(group.name)}`;
        // A group inside itself other than as a type's whole content (soleGroup) cannot be expanded: say what is lost.
        if (this.expanding.has(key)) this.warn(`Group '${group.name.local}' contains itself; where it does, its elements are left out.`);
        this.guarded(key, () => {
          for (const child of xsdChildren(group.node)) this.particle(child, group.context, model, occurrence);
          return {};
        });
      }
    }
  }

  /** A choice: every branch's members optional; a required choice whose branches each require something becomes a oneOf. */
  private choice(node: Element, context: SchemaContext, model: ObjectModel, occurrence: Occurrence): void {
    const branches: string[][] = [];
    for (const child of xsdChildren(node)) {
      if (child.localName === 'annotation') continue;
      const branch = new ObjectModel();
      this.particle(child, context, branch, { ...occurrence });
      branches.push([...branch.required]);
      for (const [key, schema] of branch.properties) if (!model.properties.has(key)) model.add(key, schema, false, false);
      model.open ||= branch.open;
      model.anyElements ||= branch.anyElements;
    }
    if (!occurrence.optional && !occurrence.repeated && branches.length > 1 && branches.every((names) => names.length === 1))
      model.choices.push(branches.map((names) => names[0]));
  }

  /** `outerRepeated`: a particle around the element repeats (its own minOccurs and maxOccurs then bound nothing in the JSON array). */
  private elementMember(
    node: Element,
    context: SchemaContext,
    model: ObjectModel,
    elementOccurrence: Occurrence,
    outerRepeated = false,
  ): void {
    let occurrence = elementOccurrence;
    const ref = attribute(node, 'ref');
    let name: string;
    let namespace: string;
    let schema: JsonSchema;
    let declaration = node;
    if (ref !== undefined) {
      const global = this.index.lookup('element', node, ref, context);
      const qname = this.index.qname(node, ref, context);
      if (global === undefined) {
        // `ref="s:schema"`: the inline schema of a .NET DataSet, XML Schema's own element, which no WSDL defines.
        if (!(isXsdNamespace(qname.ns) && qname.local === 'schema')) this.warn(`Element '${ref}' is not defined; any value is accepted.`);
        [name, namespace, schema] = [qname.local, qname.ns, {}];
      } else {
        declaration = global.node;
        [name, namespace] = [global.name.local, global.name.ns];
        schema = this.globalElementSchema(global);
        // The members of its substitution group may stand in its place: each is a member too.
        const substitutes = this.substitutes(global);
        for (const substitute of substitutes) {
          const xml = xmlMember(substitute.name.ns, false);
          const content = this.globalElementSchema(substitute);
          const member = occurrence.repeated ? withMembers({ type: 'array', items: content }, { xml }) : withMembers(content, { xml });
          if (!model.properties.has(substitute.name.local)) model.add(substitute.name.local, member, false, false);
        }
        if (substitutes.length > 0) {
          // An abstract head never occurs itself; a concrete one need not when a substitute may.
          if (attribute(global.node, 'abstract') === 'true') return;
          occurrence = { ...occurrence, optional: true };
        }
      }
    } else {
      name = attribute(node, 'name') ?? '';
      const form = attribute(node, 'form');
      namespace = form === 'qualified' || (form === undefined && context.elementQualified) ? context.targetNamespace : '';
      schema = this.declaredType(node, context);
    }
    const fixed = attribute(node, 'fixed') ?? attribute(declaration, 'fixed');
    // A fixed value narrows a shared enumeration to itself: the member gets its own copy.
    if (fixed !== undefined) schema = this.inlined(schema);
    const nillable = attribute(declaration, 'nillable') === 'true' || attribute(node, 'nillable') === 'true';
    if (nillable) schema = withMembers(schema, { nullable: true });
    const description = annotation(declaration);
    if (description !== undefined) schema = withMembers(schema, { description });
    schema = withFixed(schema, fixed);
    let required = !occurrence.optional && !nillable;
    // A required element with a fixed or default value need not be given: the writer sends that value.
    const preset = presetValue(node) ?? presetValue(declaration);
    if (required && !occurrence.repeated && preset !== undefined) {
      schema = withMembers(schema, { default: typedPreset(preset, this.inlined(schema)) });
      required = false;
    }
    // A nillable element that must occur is sent as nil when left out (the reference's client does
    // so too): strict servers refuse a message without it.
    if (nillable && !occurrence.optional && !occurrence.repeated && preset === undefined) schema = withMembers(schema, { default: null });
    // An element named `_` says so in xml.name: the member `_` without it is a type's text.
    const xml = name === '_' ? { ...xmlMember(namespace, false), name } : xmlMember(namespace, false);
    // The element's own bounds bound the array (a bounded maxOccurs; a minOccurs of 1 or more, so that
    // an empty list for an element that must occur is refused, as leaving it out is).
    const [min, max] = [occurs(node, 'minOccurs'), occurs(node, 'maxOccurs')];
    const bounds: JsonSchema = {};
    if (occurrence.repeated && !outerRepeated) {
      if (min >= 1 && !occurrence.optional) bounds.minItems = min;
      if (Number.isFinite(max)) bounds.maxItems = max;
    }
    const member = occurrence.repeated
      ? withMembers({ type: 'array', items: schema, ...bounds }, { xml, [REPEATED_GROUP]: occurrence.group })
      : withMembers(schema, { xml });
    model.add(name, member, required, false);
  }

  /** The schema of a global element's content; an anonymous complex type is shared, for it may be recursive. */
  private globalElementSchema(global: XsdComponent): JsonSchema {
    const anonymous = attribute(global.node, 'type') === undefined && xsdChild(global.node, 'complexType') !== undefined;
    return anonymous
      ? this.reference(global, () => this.declaredType(global.node, global.context))
      : this.declaredType(global.node, global.context);
  }

  /** The global elements of a head's substitution group, at any depth, in document order; abstract ones left out. */
  private substitutes(head: XsdComponent): XsdComponent[] {
    if (this.substitutionGroups === undefined) {
      const groups = new Map<string, XsdComponent[]>();
      for (const element of this.index.all('element')) {
        const group = attribute(element.node, 'substitutionGroup');
        if (group === undefined) continue;
        const key = qnameKey(this.index.qname(element.node, group, element.context));
        groups.set(key, [...(groups.get(key) ?? []), element]);
      }
      this.substitutionGroups = groups;
    }
    const found: XsdComponent[] = [];
    const seen = new Set<string>([qnameKey(head.name)]);
    const queue = [head];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      for (const member of this.substitutionGroups.get(qnameKey(next.name)) ?? []) {
        if (seen.has(qnameKey(member.name))) continue;
        seen.add(qnameKey(member.name));
        queue.push(member);
        if (attribute(member.node, 'abstract') !== 'true') found.push(member);
      }
    }
    return found;
  }

  private attributeMember(node: Element, context: SchemaContext, model: ObjectModel): void {
    if (node.localName === 'anyAttribute') {
      model.open = true;
      return;
    }
    if (node.localName === 'attributeGroup') {
      const ref = attribute(node, 'ref');
      const group = ref === undefined ? undefined : this.index.lookup('attributeGroup', node, ref, context);
      if (group === undefined) {
        if (ref !== undefined) this.warn(`Attribute group '${ref}' is not defined; its attributes are left out.`);
        return;
      }
      this.guarded(`attributeGroup${qnameKey(group.name)}`, () => {
        this.collect(group.node, group.context, model);
        return {};
      });
      return;
    }
    if (node.localName !== 'attribute' || attribute(node, 'use') === 'prohibited') return;
    const ref = attribute(node, 'ref');
    let declaration = node;
    let declarationContext = context;
    let name: QName;
    if (ref !== undefined) {
      name = this.index.qname(node, ref, context);
      // soapenc:arrayType and friends describe the encoding, not data.
      if (SOAP_ENCODING.has(name.ns)) return;
      const global = this.index.find('attribute', name, context);
      if (global === undefined) {
        this.warn(`Attribute '${ref}' is not defined; it is taken as text.`);
      } else {
        declaration = global.node;
        declarationContext = global.context;
      }
    } else {
      const form = attribute(node, 'form');
      const qualified = form === 'qualified' || (form === undefined && context.attributeQualified);
      name = { ns: qualified ? context.targetNamespace : '', local: attribute(node, 'name') ?? '' };
    }
    const type = attribute(declaration, 'type');
    const inline = xsdChild(declaration, 'simpleType');
    let schema =
      type !== undefined
        ? this.typeSchema(this.index.qname(declaration, type, declarationContext), declarationContext)
        : inline
          ? this.simpleTypeSchema(inline, declarationContext)
          : { type: 'string' };
    // An attribute of a complex type (a broken schema) takes text.
    if (typeof schema.$ref === 'string' && this.targets.get(schema)?.kind !== 'simpleType') schema = { type: 'string' };
    const description = annotation(declaration);
    const fixed = attribute(node, 'fixed') ?? attribute(declaration, 'fixed');
    if (fixed !== undefined) schema = this.inlined(schema);
    schema = withFixed(schema, fixed);
    let required = attribute(node, 'use') === 'required';
    // As for elements: a required attribute with a fixed or default value is sent with it when not given.
    const preset = presetValue(node) ?? presetValue(declaration);
    if (required && preset !== undefined) {
      schema = withMembers(schema, { default: typedPreset(preset, this.inlined(schema)) });
      required = false;
    }
    model.add(name.local, withMembers(schema, { description, xml: xmlMember(name.ns, true) }), required, true);
  }

  private simpleContentSchema(node: Element, context: SchemaContext, description?: string): JsonSchema {
    const derivation = xsdChild(node, 'extension') ?? xsdChild(node, 'restriction');
    if (derivation === undefined) return { type: 'string' };
    const base = attribute(derivation, 'base');
    const baseName = base === undefined ? undefined : this.index.qname(derivation, base, context);
    const complexBase =
      baseName === undefined || isXsdNamespace(baseName.ns) ? undefined : this.index.find('complexType', baseName, context, derivation);
    // A restriction of a complex type narrows its base's text (facets) and attributes: a type of its own.
    if (complexBase !== undefined && derivation.localName === 'restriction') {
      const parts = this.simpleContentParts(node, context, new Set());
      if (parts !== undefined) return this.textWithAttributes(parts, description);
    }
    const own = new ObjectModel();
    this.collect(derivation, context, own);
    if (complexBase !== undefined) {
      const baseSchema = this.typeSchema(baseName!, context);
      if (own.properties.size === 0 || derivation.localName === 'restriction')
        return description === undefined ? baseSchema : withMembers(baseSchema, { description });
      return withMembers({ allOf: [baseSchema, own.toSchema()] }, { description });
    }
    // A restriction narrows a copy of its base's text type; an extension keeps it as it is named.
    let text = baseName === undefined ? { type: 'string' } : this.typeSchema(baseName, context, derivation.localName === 'restriction');
    if (derivation.localName === 'restriction') {
      text = { ...text };
      this.applyFacets(text, derivation);
    }
    // Text alone is a plain value; beside attributes it is the member `_`.
    if (own.properties.size === 0 && !own.open) return withMembers(text, { description });
    const model = new ObjectModel();
    model.add('_', text, false, false);
    for (const [key, schema] of own.properties) model.add(key, schema, own.required.has(key), true);
    model.open = own.open;
    return model.toSchema(description);
  }

  /** Text alone as a plain value; beside attributes, the member `_` of an object. */
  private textWithAttributes(parts: SimpleContentParts, description?: string): JsonSchema {
    if (parts.attributes.properties.size === 0 && !parts.attributes.open) return withMembers(parts.text, { description });
    const model = new ObjectModel();
    model.add('_', parts.text, false, false);
    for (const [key, schema] of parts.attributes.properties) model.add(key, schema, parts.attributes.required.has(key), true);
    model.open = parts.attributes.open;
    return model.toSchema(description);
  }

  /**
   * The text and attributes of a simpleContent (`node`), its bases' followed: an extension adds
   * attributes, a restriction narrows the text by its facets (or its own simpleType) and declares
   * attributes anew or prohibits them. Undefined on a derivation cycle or a base without simple content.
   */
  private simpleContentParts(node: Element, context: SchemaContext, seen: Set<Element>): SimpleContentParts | undefined {
    if (seen.has(node)) return undefined;
    seen.add(node);
    const derivation = xsdChild(node, 'extension') ?? xsdChild(node, 'restriction');
    if (derivation === undefined) return { text: { type: 'string' }, attributes: new ObjectModel() };
    const restriction = derivation.localName === 'restriction';
    const base = attribute(derivation, 'base');
    const baseName = base === undefined ? undefined : this.index.qname(derivation, base, context);
    const complexBase =
      baseName === undefined || isXsdNamespace(baseName.ns) ? undefined : this.index.find('complexType', baseName, context, derivation);
    let parts: SimpleContentParts | undefined;
    if (complexBase === undefined) {
      parts = {
        text: baseName === undefined ? { type: 'string' } : this.typeSchema(baseName, context, true),
        attributes: new ObjectModel(),
      };
    } else {
      const content = xsdChild(complexBase.node, 'simpleContent');
      parts = content === undefined ? undefined : this.simpleContentParts(content, complexBase.context, seen);
    }
    if (parts === undefined) return undefined;
    let text = parts.text;
    const own = new ObjectModel();
    this.collect(derivation, context, own);
    const attributes = parts.attributes;
    if (restriction) {
      const inline = xsdChild(derivation, 'simpleType');
      text = { ...(inline === undefined ? this.inlined(text) : this.simpleTypeSchema(inline, context)) };
      this.applyFacets(text, derivation);
      for (const prohibited of xsdChildren(derivation))
        if (prohibited.localName === 'attribute' && attribute(prohibited, 'use') === 'prohibited') {
          const name = attribute(prohibited, 'name') ?? attribute(prohibited, 'ref')?.replace(/^.*:/, '') ?? '';
          attributes.properties.delete(name);
          attributes.required.delete(name);
        }
    }
    // An attribute declared again replaces the base's (a restriction narrows it).
    for (const [key, schema] of own.properties) {
      attributes.properties.set(key, schema);
      if (own.required.has(key)) attributes.required.add(key);
      else attributes.required.delete(key);
    }
    attributes.open ||= own.open;
    return { text, attributes };
  }

  private complexContentSchema(node: Element, context: SchemaContext, description?: string): JsonSchema {
    const derivation = xsdChild(node, 'extension') ?? xsdChild(node, 'restriction');
    if (derivation === undefined) return withMembers({ type: 'object' }, { description });
    const base = attribute(derivation, 'base');
    const baseName = base === undefined ? undefined : this.index.qname(derivation, base, context);
    if (baseName !== undefined && SOAP_ENCODING.has(baseName.ns) && baseName.local === 'Array') {
      return withMembers(this.encodedArray(derivation, context), { description });
    }
    const own = new ObjectModel();
    this.collect(derivation, context, own);
    const ownSchema = own.toSchema();
    // A restriction restates its content; an extension of anyType adds to nothing.
    if (derivation.localName === 'restriction' || baseName === undefined || (isXsdNamespace(baseName.ns) && baseName.local === 'anyType')) {
      return withMembers(ownSchema, { description });
    }
    // A type of xs:redefine extends the definition it redefines, of its own name: that one's content, inlined.
    const redefined = this.index.find('complexType', baseName, context, derivation);
    if (redefined !== undefined && redefined !== this.index.find('complexType', baseName, context)) {
      const baseSchema = this.complexTypeSchema(redefined.node, redefined.context);
      return withMembers(own.properties.size === 0 && !own.open ? baseSchema : { allOf: [baseSchema, ownSchema] }, { description });
    }
    // A derivation cycle (A extends B extends A) is no schema at all, and no TypeScript type either.
    const self = this.derivesFromItself(node, context);
    if (self !== undefined) {
      this.warn(`Type '${self}' derives from itself (through its base '${baseName.local}'); its base is left out.`);
      return withMembers(ownSchema, { description });
    }
    const baseSchema = this.typeSchema(baseName, context);
    if (own.properties.size === 0 && !own.open) return description === undefined ? baseSchema : withMembers(baseSchema, { description });
    return withMembers({ allOf: [baseSchema, ownSchema] }, { description });
  }

  /** The name of the named type whose complexContent `node` is, when following its bases leads back to it. */
  private derivesFromItself(node: Element, context: SchemaContext): string | undefined {
    const type = node.parentNode as Element | null;
    const local = type === null ? undefined : attribute(type, 'name');
    if (local === undefined) return undefined;
    return this.derivationCycles().has(qnameKey({ ns: context.targetNamespace, local })) ? local : undefined;
  }

  /**
   * The complex types (`{ns}local`) on a derivation cycle, found once in one pass: each type has
   * at most one base, so following bases from every type, each type walked once, finds them.
   */
  private derivationCycles(): Set<string> {
    if (this.cycles !== undefined) return this.cycles;
    const bases = new Map<string, string | undefined>();
    for (const type of this.index.all('complexType')) {
      const content = xsdChild(type.node, 'complexContent') ?? xsdChild(type.node, 'simpleContent');
      const derivation = content === undefined ? undefined : (xsdChild(content, 'extension') ?? xsdChild(content, 'restriction'));
      const base = derivation === undefined ? undefined : attribute(derivation, 'base');
      const baseType = base === undefined ? undefined : this.index.lookup('complexType', derivation!, base, type.context);
      // The definition a redefinition redefines (its base of its own name) is no step on a cycle.
      const redefines = baseType !== undefined && baseType !== this.index.find('complexType', baseType.name);
      bases.set(qnameKey(type.name), baseType === undefined || redefines ? undefined : qnameKey(baseType.name));
    }
    const cycles = new Set<string>();
    const done = new Set<string>();
    for (const start of bases.keys()) {
      const path: string[] = [];
      const onPath = new Set<string>();
      let next: string | undefined = start;
      while (next !== undefined && !done.has(next) && !onPath.has(next)) {
        path.push(next);
        onPath.add(next);
        next = bases.get(next);
      }
      if (next !== undefined && onPath.has(next)) for (const key of path.slice(path.indexOf(next))) cycles.add(key);
      for (const key of path) done.add(key);
    }
    this.cycles = cycles;
    return cycles;
  }

  /** A SOAP-encoded array: items from `wsdl:arrayType="tns:Item[]"`, else from its one element. */
  private encodedArray(restriction: Element, context: SchemaContext): JsonSchema {
    for (const attributeNode of xsdChildren(restriction).filter((child) => child.localName === 'attribute')) {
      const arrayType = attributeNode.getAttributeNS(WSDL_NS, 'arrayType') || attribute(attributeNode, 'arrayType');
      if (!arrayType) continue;
      const match = /^(.*?)((?:\[[\d,\s]*\])+)$/.exec(arrayType.trim());
      if (match === null) continue;
      let items = this.typeSchema(this.index.qname(attributeNode, match[1], context), context);
      // `Item[][]`: an array of arrays of Item.
      const depth = (match[2].match(/\[/g) ?? []).length;
      for (let level = 1; level < depth; level++) items = { type: 'array', items };
      return { type: 'array', items };
    }
    const model = new ObjectModel();
    this.collect(restriction, context, model);
    const [only] = [...model.properties.values()];
    if (model.properties.size === 1 && only !== undefined)
      return only.type === 'array' ? { type: 'array', items: only.items } : { type: 'array', items: only };
    return { type: 'array', items: {} };
  }
}
