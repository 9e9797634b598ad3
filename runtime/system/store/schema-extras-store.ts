/**
 * The platform's store of what `_schema` clients set about tables and fields beyond the database's
 * own catalog (labels, plurals, descriptions, declared types), per service, in the system database
 * (the reference keeps them in db_table_extras and db_field_extras).
 */
import type { SchemaExtrasStore, TableExtras } from '../../services/service-kind.js';
import type { SystemDb } from './system-db.js';

/** A value to store: a given string (or null to clear), or undefined to keep what is stored. */
const given = (value: string | null | undefined, stored: string | null | undefined): string | null =>
  value === undefined ? (stored ?? null) : value;

export function schemaExtrasStore(db: SystemDb): SchemaExtrasStore {
  return {
    async read(serviceId) {
      const [tables, fields] = await Promise.all([
        db.selectFrom('schema_table_extra').selectAll().where('service_id', '=', serviceId).execute(),
        db.selectFrom('schema_field_extra').selectAll().where('service_id', '=', serviceId).orderBy('id').execute(),
      ]);
      const byTable = new Map<string, TableExtras>();
      const entry = (table: string) => byTable.get(table) ?? byTable.set(table, { table, fields: [] }).get(table)!;
      for (const row of tables)
        Object.assign(entry(row.table_name), { label: row.label, plural: row.plural, description: row.description });
      for (const row of fields)
        entry(row.table_name).fields.push({ field: row.field_name, label: row.label, description: row.description, type: row.type });
      return [...byTable.values()];
    },

    async write(serviceId, extras) {
      await db.transaction().execute(async (trx) => {
        for (const table of extras) {
          const tableName = table.table.toLowerCase();
          const stored = await trx
            .selectFrom('schema_table_extra')
            .selectAll()
            .where('service_id', '=', serviceId)
            .where('table_name', '=', tableName)
            .executeTakeFirst();
          const row = {
            label: given(table.label, stored?.label),
            plural: given(table.plural, stored?.plural),
            description: given(table.description, stored?.description),
          };
          if (stored) await trx.updateTable('schema_table_extra').set(row).where('id', '=', stored.id).execute();
          else if (Object.values(row).some((value) => value !== null))
            await trx
              .insertInto('schema_table_extra')
              .values({ service_id: serviceId, table_name: tableName, ...row })
              .execute();
          for (const field of table.fields) {
            const fieldName = field.field.toLowerCase();
            const old = await trx
              .selectFrom('schema_field_extra')
              .selectAll()
              .where('service_id', '=', serviceId)
              .where('table_name', '=', tableName)
              .where('field_name', '=', fieldName)
              .executeTakeFirst();
            const values = {
              label: given(field.label, old?.label),
              description: given(field.description, old?.description),
              type: given(field.type, old?.type),
            };
            if (old) await trx.updateTable('schema_field_extra').set(values).where('id', '=', old.id).execute();
            else if (Object.values(values).some((value) => value !== null)) {
              await trx
                .insertInto('schema_field_extra')
                .values({ service_id: serviceId, table_name: tableName, field_name: fieldName, ...values })
                .execute();
            }
          }
        }
      });
    },

    async drop(serviceId, table, field) {
      const tableName = table.toLowerCase();
      let fields = db.deleteFrom('schema_field_extra').where('service_id', '=', serviceId).where('table_name', '=', tableName);
      if (field !== undefined) fields = fields.where('field_name', '=', field.toLowerCase());
      await fields.execute();
      if (field === undefined)
        await db.deleteFrom('schema_table_extra').where('service_id', '=', serviceId).where('table_name', '=', tableName).execute();
    },
  };
}
