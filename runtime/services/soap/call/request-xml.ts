/**
 * JSON -> the XML of a request's SOAP body, driven by the message's JSON Schema: members in schema
 * order whatever the JSON order, attributes from members flagged `xml.attribute`, `_` as the text
 * beside them, arrays as repeated elements, null as xsi:nil. Values are checked and converted on
 * the way (`"42"` is fine for an integer, as query strings need), so that a bad request is a 400
 * naming the field rather than a fault from the remote service. Unknown members are ignored, as
 * the reference platform does. Namespaces are written as default-namespace declarations where
 * they change, so no prefixes need managing.
 */
import type { JsonSchema, SoapMessageModel, SoapVersion } from '../../../model/platform-model.js';
import type { ArrayShape, Member, ObjectShape, SchemaView, ScalarShape } from '../wsdl/json-schema-view.js';
import { DEFINITION_REF } from '../wsdl/json-schema-parts.js';
import { escapeXml, MAX_NESTING, XML_NS, XSD_NS } from '../xml-dom.js';
import { soapMessages } from '../soap-messages.js';

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

/** A member the JSON object itself has (a field named `constructor` is not Object's). */
const own = (value: Record<string, Json>, key: string): Json => (Object.hasOwn(value, key) ? value[key] : undefined);

/** The ranges of the integer formats the schemas use (json-schema-parts.ts). */
const INTEGER_RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** The definition a derived type's schema extends (the `$ref` first in its allOf), or undefined. */
function baseOf(schema: JsonSchema): string | undefined {
  const parts = Array.isArray(schema.allOf) ? (schema.allOf as JsonSchema[]) : [];
  return parts.length > 0 ? definitionOf(parts[0]) : definitionOf(schema);
}

/** The values of xsd:float and xsd:double beyond the numbers (XML Schema 1.1 adds +INF). */
const SPECIAL_FLOATS = new Set(['INF', '-INF', '+INF', 'NaN']);

/** The bounds of an integer: its format's range narrowed by the schema's minimum and maximum. */
function integerRange(shape: ScalarShape): [bigint | undefined, bigint | undefined] {
  let [min, max] = shape.format === undefined ? [] : (INTEGER_RANGES[shape.format] ?? []);
  // An exclusive bound excludes itself: the integers above (below) it.
  const low = shape.minimum === undefined ? undefined : shape.exclusiveMinimum ? Math.floor(shape.minimum) + 1 : Math.ceil(shape.minimum);
  const high = shape.maximum === undefined ? undefined : shape.exclusiveMaximum ? Math.ceil(shape.maximum) - 1 : Math.floor(shape.maximum);
  if (low !== undefined && (min === undefined || BigInt(low) > min)) min = BigInt(low);
  if (high !== undefined && (max === undefined || BigInt(high) < max)) max = BigInt(high);
  return [min, max];
}

/** Whether a float, double or decimal lies within the schema's bounds (NaN within none). */
function withinBounds(number: number, shape: ScalarShape): boolean {
  const { minimum, maximum } = shape;
  if (minimum !== undefined && !(shape.exclusiveMinimum ? number > minimum : number >= minimum)) return false;
  return maximum === undefined || (shape.exclusiveMaximum ? number < maximum : number <= maximum);
}

/** The 400 for a number beyond its bounds. */
function rangeError(path: string, shape: ScalarShape) {
  const [min, max] = [shape.minimum?.toString(), shape.maximum?.toString()];
  if (shape.exclusiveMinimum || shape.exclusiveMaximum)
    return soapMessages.outOfOpenRange.error(path, min, shape.exclusiveMinimum === true, max, shape.exclusiveMaximum === true);
  return soapMessages.outOfRange.error(path, min, max, 'a number');
}

/** Characters XML 1.0 cannot carry, not even as references (C0 controls but tab, LF and CR; U+FFFE, U+FFFF). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding these characters is the point.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** A member's value, or when left out the fixed or default value its declaration gives (xsd-json-schema.ts: `default`). */
function withPreset(item: Json, member: Member): Json {
  return item === undefined && !member.array ? member.schema.default : item;
}

/** Text for XML, escaped; a character XML cannot carry is a 400 naming the field. */
export function xmlText(text: string, path: string): string {
  const bad = NOT_XML.exec(text);
  if (bad !== null) throw soapMessages.notXmlCharacter.error(path, bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0'));
  return escapeXml(text);
}

/**
 * A number in exponent notation (`1e+21`, `1.5E-7`) written out in digits, as xsd:decimal and
 * the integer types require; other text unchanged. null when the exponent is beyond any sense.
 */
function plainDigits(text: string): string | null {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?[eE]([+-]?\d+)$/.exec(text);
  if (match === null) return text;
  const [, sign, whole, fraction = '', exponent] = match;
  if (Math.abs(Number(exponent)) > 1000) return null;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  let plain =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  plain = plain.replace(/^0+(?=\d)/, '');
  if (plain.includes('.')) plain = plain.replace(/\.?0+$/, '');
  return sign === '-' && /[1-9]/.test(plain) ? `-${plain}` : plain;
}

/** The text of a scalar, checked against its shape. */
function scalarText(value: Json, shape: ScalarShape, path: string): string {
  let text: string;
  switch (shape.type) {
    case 'integer': {
      if (!(typeof value === 'number' ? Number.isInteger(value) : typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value))) {
        throw soapMessages.notInteger.error(path);
      }
      text = typeof value === 'number' ? BigInt(value).toString() : String(value).trim();
      const [min, max] = integerRange(shape);
      if ((min !== undefined && BigInt(text) < min) || (max !== undefined && BigInt(text) > max)) {
        throw soapMessages.outOfRange.error(path, min?.toString(), max?.toString());
      }
      break;
    }
    case 'number': {
      // float and double also have the values INF, -INF and NaN, which JSON can only carry as text.
      if (shape.format !== undefined && typeof value === 'string' && SPECIAL_FLOATS.has(value.trim())) {
        text = value.trim();
        // INF is beyond any maximum, -INF below any minimum, and NaN within no range.
        const special = text === 'NaN' ? Number.NaN : text.startsWith('-') ? -Infinity : Infinity;
        if (!withinBounds(special, shape)) throw rangeError(path, shape);
        break;
      }
      if (
        !(typeof value === 'number'
          ? Number.isFinite(value)
          : typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
      ) {
        throw soapMessages.notNumber.error(path);
      }
      text = String(value).trim();
      // float and double take exponents; xsd:decimal (no format) does not.
      const plain = shape.format === undefined ? plainDigits(text) : text;
      if (plain === null) throw soapMessages.notNumber.error(path);
      text = plain;
      const number = Number(text);
      if (!withinBounds(number, shape)) throw rangeError(path, shape);
      break;
    }
    case 'boolean': {
      const normalised = typeof value === 'string' ? value.trim().toLowerCase() : value;
      if (normalised === true || normalised === 'true' || normalised === '1' || normalised === 1) text = 'true';
      else if (normalised === false || normalised === 'false' || normalised === '0' || normalised === 0) text = 'false';
      else throw soapMessages.notBoolean.error(path);
      break;
    }
    default:
      // An xsd:list given as a JSON array: its items separated by spaces.
      if (shape.list === true && Array.isArray(value)) {
        return value
          .map((item, index) => {
            const itemText = scalarText(item, { kind: 'scalar', type: 'string', enum: null }, `${path}[${index}]`);
            if (itemText.trim() === '' || /\s/.test(itemText)) throw soapMessages.listItemWithSpace.error(`${path}[${index}]`);
            return itemText;
          })
          .join(' ');
      }
      if (isObject(value) || Array.isArray(value)) {
        if (shape.type === 'string') throw soapMessages.notText.error(path, Array.isArray(value) ? 'a list' : 'an object');
        return '';
      }
      text = String(value);
  }
  if ((shape.type === 'integer' || shape.type === 'number') && (shape.totalDigits !== undefined || shape.fractionDigits !== undefined))
    checkDigits(text, shape, path);
  if (shape.type === 'string' && shape.list !== true && (shape.minLength !== undefined || shape.maxLength !== undefined))
    checkLength(text, shape, path);
  // A pattern applies after the type's whitespace handling, which the schema does not record: the
  // text passes as it is or with its whitespace collapsed (xs:token and the non-string types).
  if (shape.pattern !== undefined && !shape.pattern.test(text) && !shape.pattern.test(text.replace(/[\t\n\r ]+/g, ' ').trim()))
    throw soapMessages.notMatching.error(path, shape.pattern.source);
  // A number is one of the enumeration's values by value: '1.0' is the decimal 1, '+02' the integer 2.
  const numeric = shape.type === 'number' || shape.type === 'integer';
  if (shape.enum !== null && !shape.enum.some((allowed) => (numeric ? sameNumber(String(allowed), text) : String(allowed) === text))) {
    throw soapMessages.notAllowed.error(path, shape.enum);
  }
  return xmlText(text, path);
}

/** Whether two numbers' texts are one value: by value, and INF, -INF and NaN (each equal to itself) by name. */
function sameNumber(a: string, b: string): boolean {
  const [x, y] = [a.trim(), b.trim()];
  if (SPECIAL_FLOATS.has(x) || SPECIAL_FLOATS.has(y)) return x.replace(/^\+/, '') === y.replace(/^\+/, '');
  return Number(x) === Number(y);
}

/**
 * A decimal's digits against totalDigits and fractionDigits, which limit its value: leading zeros
 * and zeros after the last fraction digit do not count ('1.50' has one fraction digit).
 */
function checkDigits(text: string, shape: ScalarShape, path: string): void {
  const [whole, fraction = ''] = text.replace(/^[+-]/, '').split('.');
  const fractionDigits = fraction.replace(/0+$/, '').length;
  const totalDigits = whole.replace(/^0+/, '').length + fractionDigits;
  if (
    (shape.totalDigits !== undefined && totalDigits > shape.totalDigits) ||
    (shape.fractionDigits !== undefined && fractionDigits > shape.fractionDigits)
  )
    throw soapMessages.tooManyDigits.error(path, shape.totalDigits, shape.fractionDigits);
}

/**
 * A text's length against its type's length facets: characters, or for base64Binary the octets it
 * stands for. As for patterns, the text passes as given or with its whitespace collapsed.
 */
function checkLength(text: string, shape: ScalarShape, path: string): void {
  const bytes = shape.format === 'byte';
  const length = (value: string) => (bytes ? Buffer.from(value, 'base64').length : [...value].length);
  const fits = (value: string) => {
    const size = length(value);
    return (shape.minLength === undefined || size >= shape.minLength) && (shape.maxLength === undefined || size <= shape.maxLength);
  };
  if (!fits(text) && !fits(text.replace(/[\t\n\r ]+/g, ' ').trim()))
    throw soapMessages.badLength.error(path, shape.minLength, shape.maxLength, bytes ? 'bytes' : 'characters');
}

/** A complex type derived from others: its definition, XML name and the definitions it derives from. */
interface DerivedType {
  schema: JsonSchema;
  ns: string;
  local: string;
  bases: Set<string>;
}

/** The definition a schema stands for: its `$ref`, or that of an allOf wrapping one (nullable, described). */
function definitionOf(schema: JsonSchema): string | undefined {
  if (typeof schema.$ref === 'string') return schema.$ref.startsWith(DEFINITION_REF) ? schema.$ref.slice(DEFINITION_REF.length) : undefined;
  const parts = Array.isArray(schema.allOf) ? (schema.allOf as JsonSchema[]) : [];
  return parts.length === 1 ? definitionOf(parts[0]) : undefined;
}

/** The SOAP encoding namespace of each version (arrays name their items' type in its attributes). */
const SOAP_ENCODING: Record<SoapVersion, string> = {
  '1.1': 'http://schemas.xmlsoap.org/soap/encoding/',
  '1.2': 'http://www.w3.org/2003/05/soap-encoding',
};

/**
 * A type name (`{ns}local`) as a QName in an attribute value: XML Schema's under the envelope's
 * `xsd` prefix, others under `prefix`, declared in `declaration`.
 */
function typeQName(xmlType: string | undefined, prefix: string): { name: string; declaration: string } {
  const match = /^\{(.*)\}(.+)$/.exec(xmlType ?? '');
  if (match === null) return { name: 'xsd:anyType', declaration: '' };
  const [, ns, local] = match;
  if (ns === XSD_NS) return { name: `xsd:${local}`, declaration: '' };
  if (ns === '') return { name: local, declaration: '' };
  return { name: `${prefix}:${local}`, declaration: ` xmlns:${prefix}="${escapeXml(ns)}"` };
}

export class RequestWriter {
  private readonly derived: DerivedType[] = [];

  /**
   * `derivedTypes`: definition names of complex types derived from others, by XML name (the
   * model's `derivedTypes`); a value given with members only such a type has is written as it,
   * named in xsi:type.
   */
  constructor(
    private readonly view: SchemaView,
    derivedTypes: Readonly<Record<string, string>> = {},
  ) {
    const definitions = view.definitions;
    for (const [xmlName, name] of Object.entries(derivedTypes)) {
      const schema = definitions[name];
      const match = /^\{(.*)\}(.+)$/.exec(xmlName);
      if (schema === undefined || match === null) continue;
      const bases = new Set<string>();
      for (let base = baseOf(schema); base !== undefined && !bases.has(base); base = baseOf(definitions[base] ?? {})) bases.add(base);
      this.derived.push({ schema: { $ref: `${DEFINITION_REF}${name}` }, ns: match[1], local: match[2], bases });
    }
  }

  /**
   * The derived type to write an object value of `schema` as: when the value has members the
   * declared type lacks, the most specific type derived from it that has them all (an abstract
   * Shape given a radius is a Circle). Undefined otherwise.
   */
  private derivedFor(schema: JsonSchema, shape: ObjectShape, value: Record<string, Json>): DerivedType | undefined {
    if (this.derived.length === 0) return undefined;
    const known = (candidate: ObjectShape, key: string) => candidate.members.some((member) => member.key === key);
    const extra = Object.keys(value).filter((key) => !known(shape, key));
    const declared = definitionOf(schema);
    if (extra.length === 0 || declared === undefined) return undefined;
    let best: { type: DerivedType; size: number } | undefined;
    for (const type of this.derived) {
      if (!type.bases.has(declared)) continue;
      const candidate = this.view.shape(type.schema);
      if (candidate.kind !== 'object' || !extra.every((key) => known(candidate, key))) continue;
      if (best === undefined || candidate.members.length < best.size) best = { type, size: candidate.members.length };
    }
    return best?.type;
  }

  /**
   * The body content of a message from its JSON object. `encoded`: the SOAP version of an
   * encoded operation's call, whose values each name their type in xsi:type and whose
   * SOAP-encoded arrays their items' type and number (soapenc:arrayType, or itemType and
   * arraySize in SOAP 1.2), as the reference's client writes them; old rpc/encoded hosts (Axis 1,
   * nuSOAP, PHP) decode by them.
   */
  message(message: SoapMessageModel, value: Json, encoded: SoapVersion | null = null): string {
    const body = value === undefined || value === null ? {} : value;
    if (!isObject(body)) throw soapMessages.bodyNotObject.error();
    const deep = deepMember(body);
    if (deep !== null) throw soapMessages.tooDeep.error(deep, MAX_NESTING);
    const shape = this.view.shape(message.schema);
    if (shape.kind !== 'object') return '';
    // SOAP 1.2 puts encodingStyle on the body's elements, not the Envelope (soap-envelope.ts, which binds `soap`).
    const style = encoded === '1.2' ? ` soap:encodingStyle="${SOAP_ENCODING['1.2']}"` : '';
    if (message.wrapper === null) return this.children(shape, body, '', '', encoded, style);
    const { name, namespace } = message.wrapper;
    return `<${name}${namespace === '' ? '' : ` xmlns="${escapeXml(namespace)}"`}${style}${this.attributes(shape, body, '')}>${this.children(shape, body, namespace, '', encoded)}</${name}>`;
  }

  private attributes(shape: ObjectShape, value: Record<string, Json>, path: string): string {
    let text = '';
    let prefix = 0;
    for (const member of shape.attributes.values()) {
      const item = withPreset(own(value, member.key), member);
      if (item === undefined || item === null) {
        if (member.required) throw soapMessages.required.error(join(path, member.key));
        continue;
      }
      const itemShape = this.view.shape(member.schema);
      const content = scalarText(
        item,
        itemShape.kind === 'scalar' ? itemShape : { kind: 'scalar', type: 'string', enum: null },
        join(path, member.key),
      );
      if (member.namespace === '') text += ` ${member.xmlName}="${content}"`;
      // The xml: namespace (xml:lang) is bound to its prefix and may not be declared for another.
      else if (member.namespace === XML_NS) text += ` xml:${member.xmlName}="${content}"`;
      else text += ` xmlns:a${prefix}="${escapeXml(member.namespace)}" a${prefix++}:${member.xmlName}="${content}"`;
    }
    // What xs:anyAttribute stands for in a type without xs:any: the members the schema does not
    // name are attributes in no namespace, each a single simple value (as replies read them).
    if (shape.open && !shape.anyElements) {
      const named = new Set(shape.members.map((member) => member.key));
      for (const [key, item] of Object.entries(value)) {
        if (named.has(key) || item === undefined || item === null) continue;
        const where = join(path, key);
        if (typeof item === 'object') throw soapMessages.notAttributeValue.error(where, Array.isArray(item) ? 'a list' : 'an object');
        if (!XML_NAME.test(key) || /^xml/i.test(key)) throw soapMessages.notAttributeName.error(where);
        text += ` ${key}="${escapeXml(String(item))}"`;
      }
    }
    return text;
  }

  /** The text and child elements of an object value; `inScope` is the default namespace in scope. */
  /** `top`: attributes for each child element (the body's own elements). */
  private children(
    shape: ObjectShape,
    value: Record<string, Json>,
    inScope: string,
    path: string,
    encoded: SoapVersion | null,
    top = '',
  ): string {
    for (const choice of shape.choices ?? []) {
      const given = choice.filter((key) => own(value, key) !== undefined);
      if (given.length !== 1) throw soapMessages.choice.error(path, choice, given);
    }
    let xml = '';
    let groupsWritten: Set<number> | undefined;
    for (const member of shape.members) {
      if (member.attribute) continue;
      if (member.group !== undefined) {
        // Members of one repeated group: their items in turns, as the content model repeats.
        groupsWritten ??= new Set();
        if (!groupsWritten.has(member.group)) xml += this.group(shape, member.group, value, inScope, path, encoded, top);
        groupsWritten.add(member.group);
        continue;
      }
      const item = withPreset(own(value, member.key), member);
      const where = join(path, member.key);
      if (member === shape.text) {
        if (item !== undefined && item !== null) xml += this.scalar(member.schema, item, where);
        continue;
      }
      // null for an optional element that is not nillable: left out, the one way XML can say "no value".
      if (item === undefined || (item === null && !member.required && !member.array && !this.nillable(member, encoded))) {
        if (member.required) throw soapMessages.required.error(where);
        continue;
      }
      if (member.array) {
        const items = Array.isArray(item) ? item : [item];
        if (
          (member.maxItems !== undefined && items.length > member.maxItems) ||
          (member.minItems !== undefined && items.length < member.minItems)
        )
          throw soapMessages.itemCount.error(where, member.minItems, member.maxItems);
        items.forEach((entry, index) => {
          xml += this.element(member, entry, inScope, `${where}[${index}]`, encoded, top);
        });
      } else {
        xml += this.element(member, item, inScope, where, encoded, top);
      }
    }
    // What xs:any stands for: the members the schema does not name, as elements in no namespace
    // after the named ones (where xs:any usually is), written as any value is.
    if (shape.anyElements) {
      const named = new Set(shape.members.map((member) => member.key));
      for (const [key, item] of Object.entries(value)) {
        if (named.has(key) || item === undefined || !XML_NAME.test(key)) continue;
        const open = `${key}${inScope === '' ? '' : ' xmlns=""'}`;
        for (const [index, entry] of (Array.isArray(item) ? item : [item]).entries()) {
          const where = join(path, Array.isArray(item) ? `${key}[${index}]` : key);
          xml += entry === null ? `<${open} xsi:nil="true"/>` : `<${open}>${anyContent(entry, where)}</${key}>`;
        }
      }
    }
    return xml;
  }

  /** The members of a repeated model group: first items of each, then second items, and so on. */
  private group(
    shape: ObjectShape,
    group: number,
    value: Record<string, Json>,
    inScope: string,
    path: string,
    encoded: SoapVersion | null,
    top: string,
  ): string {
    const members = shape.members.filter((member) => member.group === group && !member.attribute);
    const lists = members.map((member) => {
      const item = own(value, member.key);
      if (item === undefined && member.required) throw soapMessages.required.error(join(path, member.key));
      return item === undefined ? [] : Array.isArray(item) ? item : [item];
    });
    let xml = '';
    for (let index = 0; index < Math.max(0, ...lists.map((list) => list.length)); index++)
      members.forEach((member, position) => {
        if (index < lists[position].length)
          xml += this.element(member, lists[position][index], inScope, `${join(path, member.key)}[${index}]`, encoded, top);
      });
    return xml;
  }

  private element(member: Member, value: Json, inScope: string, path: string, encoded: SoapVersion | null, top = ''): string {
    const open = `${member.xmlName}${member.namespace === inScope ? '' : ` xmlns="${escapeXml(member.namespace)}"`}${top}`;
    if (value === null) {
      if (!this.nillable(member, encoded)) throw soapMessages.notNullable.error(path);
      return `<${open} xsi:nil="true"/>`;
    }
    const shape = this.view.shape(member.schema);
    // Encoded: the value's type in xsi:type, as declared (the derived type given instead names its own).
    const typed = (xmlType: string | undefined) => {
      if (encoded === null || xmlType === undefined) return '';
      const type = typeQName(xmlType, 'xt');
      return `${type.declaration} xsi:type="${escapeXml(type.name)}"`;
    };
    if (shape.kind === 'object') {
      // A text-with-attributes value may be given as the bare text.
      const object = !isObject(value) && shape.text !== null ? { _: value } : value;
      if (!isObject(object)) throw soapMessages.notObject.error(path);
      const derived = this.derivedFor(member.schema, shape, object);
      if (derived !== undefined) {
        const own = this.view.shape(derived.schema) as ObjectShape;
        const type = derived.ns === '' ? derived.local : `xt:${derived.local}`;
        const declaration = derived.ns === '' ? '' : ` xmlns:xt="${escapeXml(derived.ns)}"`;
        return `<${open}${declaration} xsi:type="${escapeXml(type)}"${this.attributes(own, object, path)}>${this.children(own, object, member.namespace, path, encoded)}</${member.xmlName}>`;
      }
      return `<${open}${typed(shape.xmlType)}${this.attributes(shape, object, path)}>${this.children(shape, object, member.namespace, path, encoded)}</${member.xmlName}>`;
    }
    if (shape.kind === 'array') {
      const items = Array.isArray(value) ? value : [value];
      const item: Member = { ...member, xmlName: 'item', namespace: '', schema: shape.items };
      const content = items.map((entry, index) => this.element(item, entry, member.namespace, `${path}[${index}]`, encoded)).join('');
      return `<${open}${encoded === null ? '' : this.arrayAttributes(shape, items.length, encoded)}>${content}</${member.xmlName}>`;
    }
    if (shape.type === null && (isObject(value) || Array.isArray(value))) {
      if (encoded !== null)
        return `<${open}${encodedAnyAttributes(value, encoded)}>${encodedAnyContent(value, path, encoded)}</${member.xmlName}>`;
      return `<${open}>${anyContent(value, path)}</${member.xmlName}>`;
    }
    // A scalar of any type says its type, as the reference's client does: hosts (Axis2, .NET) read an untyped one as XML or text.
    const type = shape.type === null && shape.xmlType === undefined ? ` xsi:type="xsd:${anyScalarType(value)}"` : typed(shape.xmlType);
    return `<${open}${type}>${this.scalar(member.schema, value, path)}</${member.xmlName}>`;
  }

  /**
   * A SOAP-encoded array's type and its items' type and number: SOAP 1.1 `soapenc:arrayType="T[n]"`
   * (anyType as ur-type, as SOAP 1.1 names it), SOAP 1.2 `itemType` and `arraySize`.
   */
  private arrayAttributes(shape: ArrayShape, count: number, version: SoapVersion): string {
    const items = this.view.shape(shape.items);
    const itemType = typeQName(items.xmlType ?? (items.kind === 'array' ? `{${SOAP_ENCODING[version]}}Array` : undefined), 'it');
    const attributes = ` xmlns:SOAP-ENC="${SOAP_ENCODING[version]}"${itemType.declaration} xsi:type="SOAP-ENC:Array"`;
    if (version === '1.2') return `${attributes} SOAP-ENC:itemType="${escapeXml(itemType.name)}" SOAP-ENC:arraySize="${count}"`;
    const name = itemType.name === 'xsd:anyType' ? 'xsd:ur-type' : itemType.name;
    return `${attributes} SOAP-ENC:arrayType="${escapeXml(name)}[${count}]"`;
  }

  /**
   * Whether an element may be sent as xsi:nil: its declaration is nillable, it is of any type, or
   * the operation is encoded (SOAP encoding lets any accessor be nil, as the reference's client sends null).
   */
  private nillable(member: Member, encoded: SoapVersion | null): boolean {
    return (
      encoded !== null ||
      member.schema.nullable === true ||
      Object.keys(member.schema).every((key) => key === 'xml' || key === 'description')
    );
  }

  private scalar(schema: JsonSchema, value: Json, path: string): string {
    const shape = this.view.shape(schema);
    return scalarText(value, shape.kind === 'scalar' ? shape : { kind: 'scalar', type: null, enum: null }, path);
  }
}

/** The member of a request that nests more than MAX_NESTING levels deep (writing is recursive), or null; walked with its own stack. */
function deepMember(body: Record<string, Json>): string | null {
  const stack: Array<[Json, string, number]> = Object.entries(body).map(([key, item]) => [item, key, 1]);
  while (stack.length > 0) {
    const [item, member, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > MAX_NESTING) return member;
    for (const entry of Array.isArray(item) ? item : Object.values(item)) stack.push([entry, member, depth + 1]);
  }
  return null;
}

/** The built-in type a JSON scalar of no declared type is sent as. */
function anyScalarType(value: Json): string {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value !== 'number') return 'string';
  if (!Number.isInteger(value)) return 'double';
  return value >= -(2 ** 31) && value < 2 ** 31 ? 'int' : 'long';
}

/**
 * Encoded, a value of no declared type says what it is, as the reference's client writes it: an
 * object a SOAP-ENC:Struct, an array a SOAP-ENC:Array of ur-type (anyType in SOAP 1.2), a scalar
 * its JSON type (anyScalarType).
 */
function encodedAnyAttributes(value: Json, version: SoapVersion): string {
  if (value === null) return ' xsi:nil="true"';
  const encoding = ` xmlns:SOAP-ENC="${SOAP_ENCODING[version]}"`;
  if (isObject(value)) return `${encoding} xsi:type="SOAP-ENC:Struct"`;
  if (!Array.isArray(value)) return ` xsi:type="xsd:${anyScalarType(value)}"`;
  if (version === '1.2')
    return `${encoding} xsi:type="SOAP-ENC:Array" SOAP-ENC:itemType="xsd:anyType" SOAP-ENC:arraySize="${value.length}"`;
  return `${encoding} xsi:type="SOAP-ENC:Array" SOAP-ENC:arrayType="xsd:ur-type[${value.length}]"`;
}

/** The content of an encoded value of no declared type: members as typed child elements, items as typed <item>s. */
function encodedAnyContent(value: Json, path: string, version: SoapVersion): string {
  const element = (name: string, item: Json, where: string) =>
    `<${name}${encodedAnyAttributes(item, version)}>${encodedAnyContent(item, where, version)}</${name}>`;
  if (Array.isArray(value)) return value.map((item, index) => element('item', item, `${path}[${index}]`)).join('');
  if (!isObject(value)) return value === null || value === undefined ? '' : xmlText(String(value), path);
  return Object.entries(value)
    .filter(([key]) => XML_NAME.test(key))
    .map(([key, member]) => element(key, member, join(path, key)))
    .join('');
}

/** A JSON member name that can be an XML element's name as it is. */
const XML_NAME = /^[A-Za-z_][\w.-]*$/;

/** A value of no declared type: object members as child elements, arrays as repeated ones. */
function anyContent(value: Json, path: string): string {
  if (Array.isArray(value)) return value.map((item, index) => anyContent(item, `${path}[${index}]`)).join('');
  if (!isObject(value)) return value === null || value === undefined ? '' : xmlText(String(value), path);
  return Object.entries(value)
    .filter(([key]) => XML_NAME.test(key))
    .flatMap(([key, member]) =>
      (Array.isArray(member) ? member : [member]).map((item) => `<${key}>${anyContent(item, join(path, key))}</${key}>`),
    )
    .join('');
}
