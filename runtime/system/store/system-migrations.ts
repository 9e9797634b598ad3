/**
 * Migrations of the system database, in code so that they ship with the runtime. Each runs once,
 * in name order; never edit one that has shipped, add the next.
 *
 * Flags are declared `boolean` and structured values `json`, so that the SQL records engine
 * (which serves the system resources) reads them as JSON booleans and JSON text.
 */
import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely';

/** Who and when: the reference platform's audit columns. */
const audit = <T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, never> =>
  table
    .addColumn('created_date', 'text', (c) => c.notNull())
    .addColumn('last_modified_date', 'text', (c) => c.notNull())
    .addColumn('created_by_id', 'integer')
    .addColumn('last_modified_by_id', 'integer');

const m0001_initial: Migration = {
  async up(db: Kysely<any>) {
    await audit(
      db.schema.createTable('user')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('username', 'text', (c) => c.unique())
        .addColumn('first_name', 'text')
        .addColumn('last_name', 'text')
        // Emails compare without case: logins and the unique check alike.
        .addColumn('email', sql`text collate nocase`, (c) => c.notNull().unique())
        .addColumn('password', 'text')
        .addColumn('is_sys_admin', 'boolean', (c) => c.notNull().defaultTo(0))
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(1))
        .addColumn('phone', 'text')
        .addColumn('default_app_id', 'integer')
        .addColumn('last_login_date', 'text')
        .addColumn('confirm_code', 'text')
        .addColumn('confirm_code_expiry', 'integer')
        .addColumn('tokens_valid_after', 'integer', (c) => c.notNull().defaultTo(0)),
    ).execute();
    await audit(
      db.schema.createTable('role')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(1))
        .addColumn('origin', 'text', (c) => c.notNull().defaultTo('api')),
    ).execute();
    await audit(
      db.schema.createTable('app')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('label', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(1))
        .addColumn('api_key', 'text', (c) => c.notNull().unique())
        .addColumn('role_id', 'integer', (c) => c.references('role.id').onDelete('set null'))
        .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('path', 'text')
        .addColumn('url', 'text')
        .addColumn('origin', 'text', (c) => c.notNull().defaultTo('api')),
    ).execute();
    await audit(
      db.schema.createTable('service')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(1))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('config', 'json', (c) => c.notNull().defaultTo('{}'))
        .addColumn('origin', 'text', (c) => c.notNull().defaultTo('api')),
    ).execute();
    await db.schema.createTable('role_service_access')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('role_id', 'integer', (c) => c.notNull().references('role.id').onDelete('cascade'))
      .addColumn('service_id', 'integer', (c) => c.references('service.id').onDelete('cascade'))
      .addColumn('component', 'text', (c) => c.notNull().defaultTo('*'))
      .addColumn('verb_mask', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('requestor_mask', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('filters', 'json', (c) => c.notNull().defaultTo('[]'))
      .addColumn('filter_op', 'text', (c) => c.notNull().defaultTo('and'))
      .execute();
    await db.schema.createTable('user_to_app_to_role')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('user.id').onDelete('cascade'))
      .addColumn('app_id', 'integer', (c) => c.notNull().references('app.id').onDelete('cascade'))
      .addColumn('role_id', 'integer', (c) => c.notNull().references('role.id').onDelete('cascade'))
      .addUniqueConstraint('user_to_app_to_role_user_app', ['user_id', 'app_id'])
      .execute();
    await audit(
      db.schema.createTable('cors_config')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('path', 'text', (c) => c.notNull().unique())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('header', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('exposed_header', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('method', 'integer', (c) => c.notNull().defaultTo(31))
        .addColumn('max_age', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('supports_credentials', 'boolean', (c) => c.notNull().defaultTo(0))
        .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(1)),
    ).execute();
    await audit(
      db.schema.createTable('lookup')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('app_id', 'integer', (c) => c.references('app.id').onDelete('cascade'))
        .addColumn('role_id', 'integer', (c) => c.references('role.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.references('user.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('value', 'text')
        .addColumn('private', 'boolean', (c) => c.notNull().defaultTo(0))
        .addColumn('description', 'text', (c) => c.notNull().defaultTo('')),
    ).execute();
    await audit(
      db.schema.createTable('email_template')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('to', 'json', (c) => c.notNull().defaultTo('[]'))
        .addColumn('cc', 'json', (c) => c.notNull().defaultTo('[]'))
        .addColumn('bcc', 'json', (c) => c.notNull().defaultTo('[]'))
        .addColumn('subject', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('body_text', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('body_html', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('from_name', 'text')
        .addColumn('from_email', 'text')
        .addColumn('reply_to_name', 'text')
        .addColumn('reply_to_email', 'text'),
    ).execute();
    await audit(
      db.schema.createTable('system_custom')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'json'),
    ).execute();
    await db.schema.createTable('revoked_token')
      .addColumn('jti', 'text', (c) => c.primaryKey())
      .addColumn('expires_at', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createTable('system_setting')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  },
};

/** A service's own OpenAPI document (reference `service_doc`): one per service. */
const m0003_service_doc: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createTable('service_doc')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('service_id', 'integer', (c) => c.notNull().unique().references('service.id').onDelete('cascade'))
      .addColumn('format', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('content', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('created_date', 'text', (c) => c.notNull())
      .addColumn('last_modified_date', 'text', (c) => c.notNull())
      .execute();
  },
};

export const systemMigrations: Record<string, Migration> = {
  '0001_initial': m0001_initial,
  '0003_service_doc': m0003_service_doc,
};
