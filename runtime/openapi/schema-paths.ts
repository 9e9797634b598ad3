/** `_schema` paths of a database service and the schemas of table descriptions (reference 3.3). */
import type { ParameterObject, PathItemObject, SchemasObject } from 'openapi3-ts/oas30';
import { jsonOperation, pathParameter } from './operation-builder.js';
import { componentRef, parameterRefs } from './shared-components.js';

/** TableSchema, FieldSchema, RelationshipSchema, and the lists TableSchemas, FieldSchemas and RelationshipSchemas. */
export function tableSchemaSchemas(): SchemasObject {
  const text = { type: 'string' } as const;
  const flag = { type: 'boolean' } as const;
  return {
    FieldSchema: {
      type: 'object',
      required: ['name'],
      properties: {
        name: text,
        label: text,
        description: { type: 'string', nullable: true },
        type: { type: 'string', description: 'Abstract type: id, string, integer, boolean, datetime, ...' },
        db_type: { type: 'string', description: 'Native type, returned on read.' },
        length: { type: 'integer', nullable: true },
        precision: { type: 'integer', nullable: true },
        scale: { type: 'integer', nullable: true },
        default: { description: 'A scalar, or `{"expression": "SQL"}`.' },
        required: flag,
        allow_null: flag,
        auto_increment: flag,
        is_primary_key: flag,
        is_unique: flag,
        is_foreign_key: flag,
        ref_table: { type: 'string', nullable: true },
        ref_field: { type: 'string', nullable: true },
        ref_on_update: { type: 'string', nullable: true },
        ref_on_delete: { type: 'string', nullable: true },
      },
    },
    RelationshipSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '`{ref_table}_by_{field}`, or `{ref_table}_by_{junction_table}` for many_many.' },
        type: { type: 'string', enum: ['belongs_to', 'has_many', 'has_one', 'many_many'] },
        field: text,
        ref_table: text,
        ref_field: text,
        junction_table: { type: 'string', nullable: true },
        junction_field: { type: 'string', nullable: true },
        junction_ref_field: { type: 'string', nullable: true },
      },
    },
    TableSchema: {
      type: 'object',
      required: ['name'],
      properties: {
        name: text,
        label: text,
        description: text,
        is_view: flag,
        primary_key: { type: 'array', items: text },
        field: { type: 'array', items: componentRef('schemas', 'FieldSchema') },
        related: { type: 'array', items: componentRef('schemas', 'RelationshipSchema') },
      },
    },
    TableSchemas: {
      type: 'object',
      properties: { resource: { type: 'array', items: componentRef('schemas', 'TableSchema') } },
    },
    // The bodies (and answers) of `_field` and `_related`: request bodies reference components (spec, Discovery).
    FieldSchemas: {
      type: 'object',
      properties: { resource: { type: 'array', items: componentRef('schemas', 'FieldSchema') } },
    },
    RelationshipSchemas: {
      type: 'object',
      properties: { resource: { type: 'array', items: componentRef('schemas', 'RelationshipSchema') } },
    },
  };
}

/** `/_schema`, `/_schema/{table_name}`, and a table's fields (`_field`) and relationships (`_related`). */
export function schemaPaths(service: string): Record<string, PathItemObject> {
  const tables = {
    description: 'Table definitions: `{"resource": [{name, label, field: [...]}]}`.',
    schema: componentRef('schemas', 'TableSchemas'),
  };
  const names = { description: 'Names of the tables.', schema: componentRef('schemas', 'ResourceList') };
  const done = { description: 'Success.', schema: componentRef('schemas', 'Success') };
  const table = { description: 'Definition of the table.', schema: componentRef('schemas', 'TableSchema') };
  const tableName = pathParameter('table_name', 'Name of the table.');
  const fields = { description: 'The fields: `{"resource": [...]}`.', schema: componentRef('schemas', 'FieldSchemas') };
  const fieldsBody = { description: 'Fields: `{"resource": [{name, type, ...}]}`.', schema: componentRef('schemas', 'FieldSchemas') };
  const field = { description: 'Definition of the field.', schema: componentRef('schemas', 'FieldSchema') };
  const relationships = {
    description: 'The relationships: `{"resource": [...]}`.',
    schema: componentRef('schemas', 'RelationshipSchemas'),
  };
  const relationshipsBody = {
    description: 'Relationships: `{"resource": [{field, ref_table, ref_field}]}`.',
    schema: componentRef('schemas', 'RelationshipSchemas'),
  };
  const relationship = { description: 'Definition of the relationship.', schema: componentRef('schemas', 'RelationshipSchema') };
  const namesToDrop = (what: string): ParameterObject => ({
    name: 'ids',
    in: 'query',
    required: false,
    description: `Comma-separated names of the ${what} to drop (or a body list of names or \`{name}\` objects).`,
    schema: { type: 'string' },
  });
  const dropped = { description: 'What was dropped: `{"resource": [{name}]}`.', schema: componentRef('schemas', 'ResourceList') };
  return {
    '/_schema': {
      get: jsonOperation({
        operationId: `get${service}Schemas`,
        summary: 'List the tables.',
        parameters: parameterRefs('fields'),
        response: names,
      }),
      post: jsonOperation({ operationId: `create${service}Schemas`, summary: 'Create tables.', body: tables, response: names }),
      put: jsonOperation({
        operationId: `replace${service}Schemas`,
        summary: 'Update tables (add or modify fields).',
        body: tables,
        response: names,
      }),
      patch: jsonOperation({
        operationId: `update${service}Schemas`,
        summary: 'Update tables (add or modify fields).',
        body: tables,
        response: names,
      }),
    },
    '/_schema/{table_name}': {
      parameters: [tableName],
      get: jsonOperation({ operationId: `get${service}TableSchema`, summary: 'Describe a table.', response: table }),
      put: jsonOperation({
        operationId: `replace${service}TableSchema`,
        summary: 'Update a table (add or modify fields).',
        body: table,
        response: done,
      }),
      patch: jsonOperation({
        operationId: `update${service}TableSchema`,
        summary: 'Update a table (add or modify fields).',
        body: table,
        response: done,
      }),
      delete: jsonOperation({ operationId: `delete${service}TableSchema`, summary: 'Drop a table.', response: done }),
    },
    '/_schema/{table_name}/_field': {
      parameters: [tableName],
      get: jsonOperation({ operationId: `get${service}FieldSchemas`, summary: 'Describe the fields of a table.', response: fields }),
      post: jsonOperation({
        operationId: `create${service}FieldSchemas`,
        summary: 'Add fields to a table.',
        body: fieldsBody,
        response: done,
      }),
      put: jsonOperation({
        operationId: `replace${service}FieldSchemas`,
        summary: 'Add or change fields of a table.',
        body: fieldsBody,
        response: done,
      }),
      patch: jsonOperation({
        operationId: `update${service}FieldSchemas`,
        summary: 'Add or change fields of a table.',
        body: fieldsBody,
        response: done,
      }),
      delete: jsonOperation({
        operationId: `delete${service}FieldSchemas`,
        summary: 'Drop fields of a table.',
        parameters: [namesToDrop('fields')],
        response: dropped,
      }),
    },
    '/_schema/{table_name}/_field/{field_name}': {
      parameters: [tableName, pathParameter('field_name', 'Name of the field.')],
      get: jsonOperation({ operationId: `get${service}FieldSchema`, summary: 'Describe a field.', response: field }),
      put: jsonOperation({ operationId: `replace${service}FieldSchema`, summary: 'Change a field.', body: field, response: done }),
      patch: jsonOperation({ operationId: `update${service}FieldSchema`, summary: 'Change a field.', body: field, response: done }),
      delete: jsonOperation({ operationId: `delete${service}FieldSchema`, summary: 'Drop a field.', response: done }),
    },
    '/_schema/{table_name}/_related': {
      parameters: [tableName],
      get: jsonOperation({
        operationId: `get${service}RelationshipSchemas`,
        summary: 'Describe the relationships of a table.',
        response: relationships,
      }),
      post: jsonOperation({
        operationId: `create${service}RelationshipSchemas`,
        summary: 'Add foreign-key relationships.',
        body: relationshipsBody,
        response: done,
      }),
      delete: jsonOperation({
        operationId: `delete${service}RelationshipSchemas`,
        summary: 'Drop foreign-key relationships of a table.',
        parameters: [namesToDrop('relationships')],
        response: dropped,
      }),
    },
    '/_schema/{table_name}/_related/{relationship_name}': {
      parameters: [tableName, pathParameter('relationship_name', 'Name of the relationship (`{ref_table}_by_{field}`).')],
      get: jsonOperation({ operationId: `get${service}RelationshipSchema`, summary: 'Describe a relationship.', response: relationship }),
      delete: jsonOperation({
        operationId: `delete${service}RelationshipSchema`,
        summary: 'Drop a foreign-key relationship.',
        response: done,
      }),
    },
  };
}
