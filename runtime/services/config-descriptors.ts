/**
 * A service kind's config JSON Schema as the reference lists it in GET /system/service_type
 * (`config_schema`, reference 5.13): an array of field descriptors (`name`, `label`, `type`,
 * `description`, `default`, `required`, `allow_null`, `values` for picklists, `items` for arrays
 * of records, `object` for maps), from which the reference's admin console builds its service
 * form. The JSON Schema stays the one source: config validation reads it, this only translates.
 */

type Schema = Record<string, unknown>;

/** The reference's field types the console renders. */
export type DescriptorType = 'string' | 'text' | 'password' | 'integer' | 'boolean' | 'picklist' | 'multi_picklist' | 'array' | 'object';

export interface ConfigDescriptor {
  name: string;
  label: string;
  type: DescriptorType;
  description: string;
  default: unknown;
  required: boolean;
  allow_null: boolean;
  values?: Array<{ label: string; name: unknown }>;
  /** Arrays of records: their fields; arrays of plain values: 'string'. */
  items?: ConfigDescriptor[] | 'string';
  /** Maps: how keys and values are labelled and typed. */
  object?: { key: { label: string; type: DescriptorType }; value: { label: string; type: DescriptorType } };
}

/** `max_records` → `Max Records`, `open_reg_role_id` → `Open Reg Role Id`. */
function humanise(name: string): string {
  return name
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ');
}

function types(schema: Schema): string[] {
  const type = schema.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
}

function picklistValues(values: unknown[]): Array<{ label: string; name: unknown }> {
  return values.filter((value) => value !== null).map((value) => ({ label: String(value), name: value }));
}

function typeOf(name: string, schema: Schema): Pick<ConfigDescriptor, 'type' | 'values' | 'items' | 'object'> {
  if (Array.isArray(schema.enum) && !schema.enum.every((value) => typeof value === 'boolean')) {
    return { type: 'picklist', values: picklistValues(schema.enum) };
  }
  const kinds = types(schema);
  if (kinds.includes('array')) {
    const items = (schema.items ?? {}) as Schema;
    if (Array.isArray(items.enum)) return { type: 'multi_picklist', values: picklistValues(items.enum) };
    if (types(items).includes('object') && items.properties) return { type: 'array', items: configDescriptors(items) };
    return { type: 'array', items: 'string' };
  }
  if (kinds.includes('object')) {
    return { type: 'object', object: { key: { label: 'Name', type: 'string' }, value: { label: 'Value', type: 'string' } } };
  }
  if (kinds.includes('integer') || kinds.includes('number')) return { type: 'integer' };
  if (kinds.includes('boolean') || (Array.isArray(schema.enum) && schema.enum.length > 0)) return { type: 'boolean' };
  if (schema.format === 'password' || /password|passphrase|secret/i.test(name)) return { type: 'password' };
  if (schema.format === 'text' || name === 'content') return { type: 'text' };
  return { type: 'string' };
}

/** The descriptors of an object schema's properties, in declaration order. */
export function configDescriptors(schema: Schema): ConfigDescriptor[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, property]) => {
    const isRequired = required.has(name);
    return {
      name,
      label: typeof property.title === 'string' ? property.title : humanise(name),
      ...typeOf(name, property),
      description: typeof property.description === 'string' ? property.description : '',
      default: property.default ?? null,
      required: isRequired,
      allow_null: !isRequired || types(property).includes('null'),
    };
  });
}
