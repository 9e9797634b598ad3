/**
 * Migrations of the system database, in code so that they ship with the runtime. Each runs once,
 * in name order; never edit one that has shipped, add the next.
 *
 * They are written once for SQLite, PostgreSQL and MySQL/MariaDB through the column kit below
 * (use it in every new migration: plain `text` keys or `autoIncrement()` fail on the servers),
 * which picks each dialect's type for the same intent (on SQLite exactly the types the first
 * release used). Flags are declared `boolean` and structured values `json`, so that the SQL
 * records engine (which serves the system resources) reads them as JSON booleans and JSON text.
 */
import {
  MysqlAdapter,
  PostgresAdapter,
  sql,
  type ColumnDataType,
  type CreateTableBuilder,
  type Expression,
  type Kysely,
  type Migration,
} from 'kysely';

type Builder = CreateTableBuilder<string, never>;

/** Column types and defaults of one dialect. */
export interface ColumnKit {
  /** Short text that may be a key or unique (MySQL cannot index unbounded text). */
  name: ColumnDataType | Expression<unknown>;
  /** Text of any length. */
  text: ColumnDataType | Expression<unknown>;
  json: ColumnDataType | Expression<unknown>;
  /** Email addresses: unique and compared without case. */
  email: ColumnDataType | Expression<unknown>;
  /** A flag's default value. */
  flag(on: boolean): unknown;
  /** A default for a text or json column (MySQL takes those only as expressions). */
  textDefault(value: string): unknown;
  /** Adds an auto-increment integer primary key `id`. */
  id(table: Builder): Builder;
  /** Whether email uniqueness is a separate index on lower(email) (PostgreSQL). */
  emailIndex: boolean;
}

export function columnKit(db: Kysely<any>): ColumnKit {
  const { adapter } = db.getExecutor();
  if (adapter instanceof PostgresAdapter) {
    return {
      name: 'text',
      text: 'text',
      json: 'json',
      email: 'text',
      flag: (on) => sql.raw(on ? 'true' : 'false'),
      textDefault: (value) => value,
      id: (table) => table.addColumn('id', 'serial', (c) => c.primaryKey()),
      emailIndex: true,
    };
  }
  if (adapter instanceof MysqlAdapter) {
    return {
      name: 'varchar(255)',
      // MySQL's text holds 64 KB; SQLite's and PostgreSQL's text has no such bound.
      text: sql`longtext`,
      json: 'json',
      email: sql`varchar(255) collate utf8mb4_unicode_ci`,
      flag: (on) => (on ? 1 : 0),
      textDefault: (value) => sql`(${sql.lit(value)})`,
      id: (table) => table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()),
      emailIndex: false,
    };
  }
  return {
    name: 'text',
    text: 'text',
    json: 'json',
    email: sql`text collate nocase`,
    flag: (on) => (on ? 1 : 0),
    textDefault: (value) => value,
    id: (table) => table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()),
    emailIndex: false,
  };
}

/** Who and when: the reference platform's audit columns. */
const audit = <T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, never> =>
  table
    .addColumn('created_date', 'text', (c) => c.notNull())
    .addColumn('last_modified_date', 'text', (c) => c.notNull())
    .addColumn('created_by_id', 'integer')
    .addColumn('last_modified_by_id', 'integer');

const m0001_initial: Migration = {
  async up(db: Kysely<any>) {
    const k = columnKit(db);
    await audit(
      k
        .id(db.schema.createTable('user'))
        .addColumn('name', k.name, (c) => c.notNull())
        .addColumn('username', k.name, (c) => c.unique())
        .addColumn('first_name', k.name)
        .addColumn('last_name', k.name)
        // Emails compare without case: logins and the unique check alike.
        .addColumn('email', k.email, (c) => (k.emailIndex ? c.notNull() : c.notNull().unique()))
        .addColumn('password', k.name)
        .addColumn('is_sys_admin', 'boolean', (c) => c.notNull().defaultTo(k.flag(false)))
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(k.flag(true)))
        .addColumn('phone', k.name)
        .addColumn('default_app_id', 'integer')
        .addColumn('last_login_date', 'text')
        .addColumn('confirm_code', k.name)
        .addColumn('confirm_code_expiry', 'integer')
        .addColumn('tokens_valid_after', 'integer', (c) => c.notNull().defaultTo(0)),
    ).execute();
    if (k.emailIndex) await db.schema.createIndex('user_email_unique').unique().on('user').expression(sql`lower(email)`).execute();
    await audit(
      k
        .id(db.schema.createTable('role'))
        .addColumn('name', k.name, (c) => c.notNull().unique())
        .addColumn('description', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(k.flag(true)))
        .addColumn('origin', k.name, (c) => c.notNull().defaultTo('api')),
    ).execute();
    await audit(
      k
        .id(db.schema.createTable('app'))
        .addColumn('name', k.name, (c) => c.notNull().unique())
        .addColumn('label', k.name, (c) => c.notNull().defaultTo(''))
        .addColumn('description', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(k.flag(true)))
        .addColumn('api_key', k.name, (c) => c.notNull().unique())
        .addColumn('role_id', 'integer', (c) => c.references('role.id').onDelete('set null'))
        .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('path', k.text)
        .addColumn('url', k.text)
        .addColumn('origin', k.name, (c) => c.notNull().defaultTo('api')),
    ).execute();
    await audit(
      db.schema
        .createTable('service')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('name', k.name, (c) => c.notNull().unique())
        .addColumn('label', k.name, (c) => c.notNull())
        .addColumn('description', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(k.flag(true)))
        .addColumn('type', k.name, (c) => c.notNull())
        .addColumn('config', k.json, (c) => c.notNull().defaultTo(k.textDefault('{}')))
        .addColumn('origin', k.name, (c) => c.notNull().defaultTo('api')),
    ).execute();
    await k
      .id(db.schema.createTable('role_service_access'))
      .addColumn('role_id', 'integer', (c) => c.notNull().references('role.id').onDelete('cascade'))
      .addColumn('service_id', 'integer', (c) => c.references('service.id').onDelete('cascade'))
      .addColumn('component', k.name, (c) => c.notNull().defaultTo('*'))
      .addColumn('verb_mask', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('requestor_mask', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('filters', k.json, (c) => c.notNull().defaultTo(k.textDefault('[]')))
      .addColumn('filter_op', k.name, (c) => c.notNull().defaultTo('and'))
      .execute();
    await k
      .id(db.schema.createTable('user_to_app_to_role'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('user.id').onDelete('cascade'))
      .addColumn('app_id', 'integer', (c) => c.notNull().references('app.id').onDelete('cascade'))
      .addColumn('role_id', 'integer', (c) => c.notNull().references('role.id').onDelete('cascade'))
      .addUniqueConstraint('user_to_app_to_role_user_app', ['user_id', 'app_id'])
      .execute();
    await audit(
      k
        .id(db.schema.createTable('cors_config'))
        .addColumn('path', k.name, (c) => c.notNull().unique())
        .addColumn('description', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('origin', k.text, (c) => c.notNull())
        .addColumn('header', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('exposed_header', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('method', 'integer', (c) => c.notNull().defaultTo(31))
        .addColumn('max_age', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('supports_credentials', 'boolean', (c) => c.notNull().defaultTo(k.flag(false)))
        .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(k.flag(true))),
    ).execute();
    await audit(
      k
        .id(db.schema.createTable('lookup'))
        .addColumn('app_id', 'integer', (c) => c.references('app.id').onDelete('cascade'))
        .addColumn('role_id', 'integer', (c) => c.references('role.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.references('user.id').onDelete('cascade'))
        .addColumn('name', k.name, (c) => c.notNull())
        .addColumn('value', k.text)
        .addColumn('private', 'boolean', (c) => c.notNull().defaultTo(k.flag(false)))
        .addColumn('description', k.text, (c) => c.notNull().defaultTo(k.textDefault(''))),
    ).execute();
    await audit(
      k
        .id(db.schema.createTable('email_template'))
        .addColumn('name', k.name, (c) => c.notNull().unique())
        .addColumn('description', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('to', k.json, (c) => c.notNull().defaultTo(k.textDefault('[]')))
        .addColumn('cc', k.json, (c) => c.notNull().defaultTo(k.textDefault('[]')))
        .addColumn('bcc', k.json, (c) => c.notNull().defaultTo(k.textDefault('[]')))
        .addColumn('subject', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('body_text', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('body_html', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('from_name', k.name)
        .addColumn('from_email', k.name)
        .addColumn('reply_to_name', k.name)
        .addColumn('reply_to_email', k.name),
    ).execute();
    await audit(
      db.schema
        .createTable('system_custom')
        .addColumn('name', k.name, (c) => c.primaryKey())
        .addColumn('value', k.json),
    ).execute();
    await db.schema
      .createTable('revoked_token')
      .addColumn('jti', k.name, (c) => c.primaryKey())
      .addColumn('expires_at', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('system_setting')
      .addColumn('name', k.name, (c) => c.primaryKey())
      .addColumn('value', k.text, (c) => c.notNull())
      .execute();
  },
};

/** A service's own OpenAPI document (reference `service_doc`): one per service. */
const m0003_service_doc: Migration = {
  async up(db: Kysely<any>) {
    const k = columnKit(db);
    await k
      .id(db.schema.createTable('service_doc'))
      .addColumn('service_id', 'integer', (c) => c.notNull().unique().references('service.id').onDelete('cascade'))
      .addColumn('format', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('content', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
      .addColumn('created_date', 'text', (c) => c.notNull())
      .addColumn('last_modified_date', 'text', (c) => c.notNull())
      .execute();
  },
};

/** Rate limits (reference 5.11): `key_text` is computed from the other fields and unique. */
const m0004_limits: Migration = {
  async up(db: Kysely<any>) {
    const k = columnKit(db);
    await audit(
      k
        .id(db.schema.createTable('limits'))
        .addColumn('type', k.name, (c) => c.notNull())
        .addColumn('key_text', k.name, (c) => c.notNull().unique())
        .addColumn('rate', 'integer', (c) => c.notNull())
        .addColumn('period', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('user_id', 'integer', (c) => c.references('user.id').onDelete('cascade'))
        .addColumn('role_id', 'integer', (c) => c.references('role.id').onDelete('cascade'))
        .addColumn('service_id', 'integer', (c) => c.references('service.id').onDelete('cascade'))
        .addColumn('endpoint', k.text)
        .addColumn('verb', k.name)
        .addColumn('name', k.name, (c) => c.notNull())
        .addColumn('description', k.text)
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(k.flag(true)))
        .addColumn('origin', k.name, (c) => c.notNull().defaultTo('api')),
    ).execute();
  },
};

/** What `_schema` clients set about tables and fields beyond the database's own catalog (reference db_table_extras, db_field_extras). */
const m0005_schema_extras: Migration = {
  async up(db: Kysely<any>) {
    const k = columnKit(db);
    await k
      .id(db.schema.createTable('schema_table_extra'))
      .addColumn('service_id', 'integer', (c) => c.notNull().references('service.id').onDelete('cascade'))
      .addColumn('table_name', k.name, (c) => c.notNull())
      .addColumn('label', k.text)
      .addColumn('plural', k.text)
      .addColumn('description', k.text)
      .addUniqueConstraint('schema_table_extra_key', ['service_id', 'table_name'])
      .execute();
    await k
      .id(db.schema.createTable('schema_field_extra'))
      .addColumn('service_id', 'integer', (c) => c.notNull().references('service.id').onDelete('cascade'))
      .addColumn('table_name', k.name, (c) => c.notNull())
      .addColumn('field_name', k.name, (c) => c.notNull())
      .addColumn('label', k.text)
      .addColumn('description', k.text)
      .addColumn('type', k.name)
      .addUniqueConstraint('schema_field_extra_key', ['service_id', 'table_name', 'field_name'])
      .execute();
  },
};

/**
 * The record of services created, changed and deleted through the API (the reference's
 * service_report). A report keeps the service's id and name after the service is gone: no
 * foreign key.
 */
const m0006_service_report: Migration = {
  async up(db: Kysely<any>) {
    const k = columnKit(db);
    await k
      .id(db.schema.createTable('service_report'))
      .addColumn('service_id', 'integer')
      .addColumn('service_name', k.name, (c) => c.notNull())
      .addColumn('user_email', k.name)
      .addColumn('action', k.name, (c) => c.notNull())
      .addColumn('request_method', k.name, (c) => c.notNull())
      .addColumn('created_date', 'text', (c) => c.notNull())
      .addColumn('last_modified_date', 'text', (c) => c.notNull())
      .execute();
  },
};

/**
 * Scheduled tasks (the reference's df-scheduler scheduler_tasks) with the outcome of each one's
 * last run (task_log, one row per task). A task goes with its service.
 */
const m0007_scheduler: Migration = {
  async up(db: Kysely<any>) {
    const k = columnKit(db);
    await audit(
      k
        .id(db.schema.createTable('scheduler_task'))
        .addColumn('name', k.name, (c) => c.notNull().unique())
        .addColumn('description', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(k.flag(true)))
        .addColumn('service_id', 'integer', (c) => c.notNull().references('service.id').onDelete('cascade'))
        .addColumn('component', k.text, (c) => c.notNull().defaultTo(k.textDefault('')))
        .addColumn('verb', k.name, (c) => c.notNull().defaultTo('GET'))
        .addColumn('verb_mask', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('frequency', 'integer', (c) => c.notNull().defaultTo(5))
        .addColumn('payload', k.text),
    ).execute();
    await db.schema
      .createTable('task_log')
      .addColumn('task_id', 'integer', (c) => c.primaryKey().references('scheduler_task.id').onDelete('cascade'))
      .addColumn('status_code', 'integer', (c) => c.notNull().defaultTo(500))
      .addColumn('content', k.text)
      .addColumn('created_date', 'text', (c) => c.notNull())
      .addColumn('last_modified_date', 'text', (c) => c.notNull())
      .execute();
  },
};

/**
 * When each app, role and user last made an allowed request and was last refused
 * (/system/access_usage): one row per subject, merged from every instance's counts.
 */
const m0008_access_usage: Migration = {
  async up(db: Kysely<any>) {
    const k = columnKit(db);
    await db.schema
      .createTable('access_usage')
      .addColumn('subject_type', k.name, (c) => c.notNull())
      .addColumn('subject_id', 'integer', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('last_denied_at', 'text')
      .addColumn('last_service', k.name)
      .addColumn('last_status', 'integer')
      .addPrimaryKeyConstraint('access_usage_subject', ['subject_type', 'subject_id'])
      .execute();
  },
};

/**
 * A service report's verb is `request_verb`, the name both reference consoles show and filter on
 * (0006 named it request_method, so the console's reports search was a 400).
 */
const m0009_service_report_verb: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('service_report').renameColumn('request_method', 'request_verb').execute();
  },
};

/** The text columns 0001 to 0007 made, with whether they are not null and their default. */
const TEXT_COLUMNS: Record<string, Array<[column: string, notNull: boolean, fallback?: string]>> = {
  role: [['description', true, '']],
  app: [
    ['description', true, ''],
    ['path', false],
    ['url', false],
  ],
  service: [['description', true, '']],
  cors_config: [
    ['description', true, ''],
    ['origin', true],
    ['header', true, ''],
    ['exposed_header', true, ''],
  ],
  lookup: [
    ['value', false],
    ['description', true, ''],
  ],
  email_template: [
    ['description', true, ''],
    ['subject', true, ''],
    ['body_text', true, ''],
    ['body_html', true, ''],
  ],
  system_setting: [['value', true]],
  service_doc: [['content', true, '']],
  limits: [
    ['endpoint', false],
    ['description', false],
  ],
  schema_table_extra: [
    ['label', false],
    ['plural', false],
    ['description', false],
  ],
  schema_field_extra: [
    ['label', false],
    ['description', false],
  ],
  scheduler_task: [
    ['description', true, ''],
    ['component', true, ''],
    ['payload', false],
  ],
  task_log: [['content', false]],
};

/**
 * On MySQL/MariaDB the text columns become longtext: as text they held 64 KB, so a role
 * description, an email template body, a lookup value or a service document of more was refused
 * there ("the value is too long") and kept on SQLite and PostgreSQL. Nothing to do elsewhere.
 */
const m0010_mysql_long_text: Migration = {
  async up(db: Kysely<any>) {
    if (!(db.getExecutor().adapter instanceof MysqlAdapter)) return;
    for (const [table, columns] of Object.entries(TEXT_COLUMNS)) {
      const changes = columns.map(
        ([column, notNull, fallback]) =>
          sql`modify ${sql.id(column)} longtext ${sql.raw(notNull ? 'not null' : 'null')}${fallback === undefined ? sql`` : sql` default (${sql.lit(fallback)})`}`,
      );
      await sql`alter table ${sql.id(table)} ${sql.join(changes)}`.execute(db);
    }
  },
};

export const systemMigrations: Record<string, Migration> = {
  '0001_initial': m0001_initial,
  '0003_service_doc': m0003_service_doc,
  '0004_limits': m0004_limits,
  '0005_schema_extras': m0005_schema_extras,
  '0006_service_report': m0006_service_report,
  '0007_scheduler': m0007_scheduler,
  '0008_access_usage': m0008_access_usage,
  '0009_service_report_verb': m0009_service_report_verb,
  '0010_mysql_long_text': m0010_mysql_long_text,
};
