import { Ajv } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import platformSchema from '../../../../schemas/platform.schema.json' with { type: 'json' };
import { parseConfig } from '#generator/config/load-config.js';
import { fixtureRegistry } from './fixture-kinds.js';

const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

type SchemaNode = { description?: string; properties?: Record<string, SchemaNode>; items?: SchemaNode; $ref?: string };

function resolve(node: SchemaNode): SchemaNode {
  if (!node.$ref) return node;
  return (platformSchema.definitions as Record<string, SchemaNode>)[node.$ref.replace('#/definitions/', '')]!;
}

/** Every property of the schema by key path (list items written as []), with its schema. */
function schemaEntries(node: SchemaNode, prefix = ''): Array<[string, SchemaNode]> {
  const resolved = resolve(node);
  if (resolved.items) return schemaEntries(resolved.items, `${prefix}[]`);
  return Object.entries(resolved.properties ?? {}).flatMap(([key, child]): Array<[string, SchemaNode]> => {
    const childPath = prefix ? `${prefix}.${key}` : key;
    // A service's config belongs to its kind's schema.
    return childPath === 'services[].config' ? [[childPath, child]] : [[childPath, child], ...schemaEntries(child, childPath)];
  });
}

const schemaPaths = schemaEntries(platformSchema as SchemaNode).map(([keyPath]) => keyPath);

/** Every object key path of normalised data, list items written as []. */
function dataPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return [...new Set(value.flatMap((item) => dataPaths(item, `${prefix}[]`)))];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const childPath = prefix ? `${prefix}.${key}` : key;
    return childPath === 'services[].config' ? [childPath] : [childPath, ...dataPaths(child, childPath)];
  });
}

describe('schemas/platform.schema.json', () => {
  it('compiles in ajv strict mode', () => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addVocabulary(['patternErrorMessage']);
    expect(() => ajv.compile(platformSchema)).not.toThrow();
  });

  it('describes every property', () => {
    const undocumented = schemaEntries(platformSchema as SchemaNode).filter(([, node]) => !node.description && !resolve(node).description);
    expect(undocumented.map(([keyPath]) => keyPath)).toEqual([]);
  });

  it('has exactly the fields of the normalised config (PlatformConfig), every default filled in', () => {
    const { config } = parseConfig(
      `
platform: { name: demo }
roles:
  - name: reader
    grants: [{ service: db, filters: [{ name: a, operator: '=', value: b }] }]
admins: [{ email: a@example.com }]
limits: [{ name: l, type: instance.role, rate: 5, role: reader }]
hooks: [{ file: hooks/db.ts }]
`,
      'platform.yaml',
      { env: {}, kinds: fixtureRegistry },
    );
    expect(dataPaths(config).sort()).toEqual([...schemaPaths].sort());
  });
});
