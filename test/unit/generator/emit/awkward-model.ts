/**
 * A platform built to trip the emitters: names that are not identifiers or clash with generated
 * names, types Prisma does not know, tables without keys, composite keys, self relations, two
 * relations between one pair of tables, and the three dialects.
 */
import type { FieldModel, ForeignKeyModel, PlatformModel, ReferentialAction, RoutineModel } from '#runtime/model/platform-model.js';
import { field, platform, sqlService, table } from '#test/golden/fixtures/model-builders.js';

const id = field('id', { type: 'id', dbType: 'integer', allowNull: false, isPrimaryKey: true, autoIncrement: true });
const int = (name: string, given: Partial<FieldModel> = {}) =>
  field(name, { type: 'integer', dbType: 'integer', allowNull: false, ...given });
const fk = (
  name: string,
  fields: string[],
  refTable: string,
  refFields: string[],
  onDelete: ReferentialAction = 'no action',
  onUpdate: ReferentialAction = 'no action',
): ForeignKeyModel => ({ name, fields, refTable, refFields, onDelete, onUpdate });

export const awkwardModel: PlatformModel = platform('awkward', [
  sqlService(1, 'my_db', 'sqlite', [
    table('2fa codes', {
      sourceName: '2FA Codes',
      fields: [
        id,
        field('user id', { sourceName: 'User ID', type: 'integer', dbType: 'integer' }),
        field('_secret', { dbType: 'varchar(64)', length: 64 }),
        field('geom', { dbType: 'geometry' }),
        field('tags', { type: 'array', dbType: 'text[]' }),
        field('data', { type: 'json', dbType: 'json' }),
        field('price', { type: 'money', dbType: 'money', default: '0' }),
        field('note */ end', { type: 'text', dbType: 'text /* odd */', default: 'it\'s "quoted"' }),
      ],
    }),
    table('Error', { fields: [id] }),
    table('contact', { fields: [id, field('name', { allowNull: false })] }),
    table('contact_insert', { fields: [id] }),
    table('string', { fields: [id, field('value', { type: 'text', dbType: 'text' })] }),
    table('table', { fields: [id] }),
    table('tables', { fields: [id] }),
    table('node', {
      fields: [id, int('parent_id', { allowNull: true, type: 'reference', isForeignKey: true, refTable: 'node', refField: 'id' })],
      foreignKeys: [fk('fk_node_parent', ['parent_id'], 'node', ['id'], 'set null')],
    }),
    table('person', { fields: [id, field('email', { allowNull: false, isUnique: true })] }),
    table('profile', {
      fields: [id, int('person_id', { isUnique: true })],
      foreignKeys: [fk('fk_profile_person', ['person_id'], 'person', ['id'], 'cascade')],
    }),
    table('message', {
      fields: [id, int('sender_id'), int('recipient_id'), field('sender_email', {})],
      foreignKeys: [
        fk('fk_message_recipient', ['recipient_id'], 'person', ['id'], 'set null'),
        fk('fk_message_sender', ['sender_id'], 'person', ['id']),
        fk('fk_message_sender_email', ['sender_email'], 'person', ['email']),
      ],
    }),
    table('membership', {
      primaryKey: ['group_id', 'person_id'],
      fields: [
        int('group_id', { isPrimaryKey: true }),
        int('person_id', { isPrimaryKey: true }),
        field('since', { type: 'datetime', dbType: 'datetime', default: { expression: "datetime('now')" } }),
      ],
    }),
    table('membership_note', {
      fields: [id, int('group_id'), int('person_id'), field('text', { type: 'text', dbType: 'text' })],
      foreignKeys: [fk('fk_note_membership', ['group_id', 'person_id'], 'membership', ['group_id', 'person_id'], 'cascade', 'cascade')],
    }),
    table('no_key', { primaryKey: [], fields: [int('code', { allowNull: true }), field('label', {})] }),
    table('link', {
      fields: [id, int('code')],
      foreignKeys: [fk('fk_link_no_key', ['code'], 'no_key', ['code'])],
    }),
    table('odd_view', { isView: true, primaryKey: [], fields: [int('n')] }),
  ]),
  sqlService(2, 'pg', 'postgres', [
    table('contact', {
      sourceSchema: 'sales',
      fields: [
        id,
        field('name', { dbType: 'character varying(80)', length: 80, allowNull: false }),
        field('code', { dbType: 'char(3)', length: 3 }),
        field('balance', { type: 'money', dbType: 'money' }),
        field('token', { type: 'uuid', dbType: 'uuid' }),
        field('born', { type: 'date', dbType: 'date' }),
        field('address', { dbType: 'inet' }),
        field('big', { type: 'bigint', dbType: 'bigint', default: '9007199254740993' }),
        field('ratio', { type: 'decimal', dbType: 'numeric(10,2)', default: 1.5 }),
        field('active', { type: 'boolean', dbType: 'boolean', default: 'true' }),
        field('mood', { dbType: 'mood', picklist: ['happy', 'so-so', ''], default: 'so-so' }),
      ],
    }),
    table('audit', {
      sourceSchema: 'public',
      fields: [field('id', { type: 'bigid', dbType: 'bigint', allowNull: false, isPrimaryKey: true, autoIncrement: true })],
    }),
  ]),
  sqlService(3, 'shop', 'mysql', [
    table('customer', {
      fields: [id, field('name', { dbType: 'varchar(100)', length: 100, allowNull: false }), field('kind', { dbType: "enum('a','b')" })],
    }),
    table('order', {
      fields: [
        id,
        int('customer_id'),
        int('agent_id', { allowNull: true }),
        field('flag', { type: 'boolean', dbType: 'tinyint(1)', default: 1 }),
      ],
      foreignKeys: [
        fk('fk_order_agent', ['agent_id'], 'customer', ['id'], 'set null', 'cascade'),
        fk('fk_order_customer', ['customer_id'], 'customer', ['id'], 'set null', 'set default'),
      ],
    }),
  ]),
]);

const routine = (name: string, kind: RoutineModel['kind']): RoutineModel => ({
  name,
  sourceName: name,
  kind,
  returnType: null,
  params: [],
});

/** The same platform with a procedure and a function on its PostgreSQL service (their hook events take RoutineRequest). */
export const awkwardRoutinesModel: PlatformModel = {
  ...awkwardModel,
  services: awkwardModel.services.map((service) =>
    service.name === 'pg' && service.kind === 'sql'
      ? { ...service, schema: { ...service.schema, routines: [routine('bump', 'procedure'), routine('add_numbers', 'function')] } }
      : service,
  ),
};
