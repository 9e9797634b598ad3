/**
 * Names of tables and fields created through `_schema`: letters, digits, `_` and `$`, starting
 * with a letter or `_`, within the database's identifier length (PostgreSQL would otherwise cut a
 * longer name silently, and the table would answer 404 under the name it was created with).
 * Names that exist already, whatever they look like, are not judged here: only new ones.
 */
import type { SqlDialect } from '../../../model/platform-model.js';
import { schemaMessages } from './schema-messages.js';

/** The longest identifier per database: PostgreSQL counts bytes (NAMEDATALEN - 1), MySQL characters; SQLite has no limit of its own. */
export const IDENTIFIER_LIMITS: Record<SqlDialect, { length: number; unit: 'bytes' | 'characters' }> = {
  postgres: { length: 63, unit: 'bytes' },
  mysql: { length: 64, unit: 'characters' },
  sqlite: { length: 128, unit: 'characters' },
};

const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_$]*$/u;

function size(name: string, unit: 'bytes' | 'characters'): number {
  return unit === 'bytes' ? Buffer.byteLength(name, 'utf8') : [...name].length;
}

/**
 * Checks a new table or field name: a 400 naming it and `what` (`table 'x'`, `field 'y' of table
 * 'x'`) when it has other characters or is too long for the database.
 */
export function assertNewIdentifier(dialect: SqlDialect, name: string, what: string, context: Record<string, unknown>): void {
  const limit = IDENTIFIER_LIMITS[dialect];
  if (!IDENTIFIER.test(name)) {
    throw schemaMessages.nameCharacters.error(what, context);
  }
  if (size(name, limit.unit) > limit.length) {
    throw schemaMessages.nameTooLong.error(what, limit.length, limit.unit, context);
  }
}
