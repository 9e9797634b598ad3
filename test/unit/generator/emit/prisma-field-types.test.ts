import { describe, expect, it } from 'vitest';
import { prismaDefault, prismaScalar } from '#generator/emit/prisma-field-types.js';
import type { FieldModel, SqlDialect } from '#runtime/model/platform-model.js';
import { field } from '#test/golden/fixtures/model-builders.js';

describe('prismaScalar', () => {
  it.each<[string, Partial<FieldModel>, SqlDialect, string, string | null]>([
    ['sqlite key', { type: 'id', dbType: 'integer' }, 'sqlite', 'Int', null],
    ['bigint', { type: 'bigint', dbType: 'bigint' }, 'postgres', 'BigInt', null],
    ['varchar on sqlite', { type: 'string', dbType: 'varchar(40)' }, 'sqlite', 'String', null],
    ['varchar on postgres', { type: 'string', dbType: 'character varying(40)' }, 'postgres', 'String', '@db.VarChar(40)'],
    ['char on mysql', { type: 'string', dbType: 'char(2)' }, 'mysql', 'String', '@db.Char(2)'],
    ['mysql enum', { type: 'string', dbType: "enum('a','b')" }, 'mysql', 'String', null],
    ['unknown type', { type: 'string', dbType: 'geometry' }, 'sqlite', 'Unsupported("geometry")', null],
    ['array', { type: 'array', dbType: 'integer[]' }, 'postgres', 'Int[]', null],
    ['array of varchar', { type: 'array', dbType: 'character varying(9)[]' }, 'postgres', 'String[]', '@db.VarChar(9)'],
    ['array of an unsupported type', { type: 'array', dbType: 'point[]' }, 'postgres', 'Unsupported("point[]")', null],
    ['array on mysql', { type: 'array', dbType: 'set' }, 'mysql', 'Unsupported("set")', null],
    ['bigint foreign key', { type: 'reference', dbType: 'bigint' }, 'postgres', 'BigInt', null],
    ['inet', { type: 'string', dbType: 'inet' }, 'postgres', 'String', '@db.Inet'],
    ['bit string', { type: 'string', dbType: 'bit(3)' }, 'postgres', 'String', '@db.Bit(3)'],
    // MySQL: only bit(1) is a Boolean to Prisma; a wider bit field is Bytes (prisma validate refused Boolean @db.Bit(8)).
    ['mysql bit(1)', { type: 'boolean', dbType: 'bit(1)' }, 'mysql', 'Boolean', '@db.Bit(1)'],
    ['mysql bit(8)', { type: 'boolean', dbType: 'bit(8)' }, 'mysql', 'Bytes', '@db.Bit(8)'],
    // SQLite: the declared type as Prisma's describer reads it, not the abstract type.
    ['sqlite boolean', { type: 'boolean', dbType: 'boolean' }, 'sqlite', 'Boolean', null],
    ['sqlite tinyint(1)', { type: 'boolean', dbType: 'tinyint(1)' }, 'sqlite', 'Unsupported("tinyint(1)")', null],
    ['sqlite smallint', { type: 'integer', dbType: 'smallint' }, 'sqlite', 'Unsupported("smallint")', null],
    ['sqlite nvarchar', { type: 'string', dbType: 'nvarchar(20)' }, 'sqlite', 'String', null],
    ['sqlite numeric', { type: 'decimal', dbType: 'numeric(5)' }, 'sqlite', 'Decimal', null],
    ['sqlite json', { type: 'json', dbType: 'json' }, 'sqlite', 'Unsupported("json")', null],
    ['sqlite jsonb', { type: 'json', dbType: 'jsonb' }, 'sqlite', 'Json', null],
    ['sqlite without a declared type', { type: 'string', dbType: '' }, 'sqlite', 'Unsupported("")', null],
    ['money on postgres', { type: 'money', dbType: 'money' }, 'postgres', 'Decimal', '@db.Money'],
    ['date on mysql', { type: 'date', dbType: 'date' }, 'mysql', 'DateTime', '@db.Date'],
    ['date on sqlite', { type: 'date', dbType: 'date' }, 'sqlite', 'DateTime', null],
    ['json', { type: 'json', dbType: 'jsonb' }, 'postgres', 'Json', null],
    ['binary', { type: 'binary', dbType: 'blob' }, 'sqlite', 'Bytes', null],
  ])('%s', (_, given, dialect, type, native) => {
    expect(prismaScalar(field('x', given), dialect)).toMatchObject({ type, native });
  });
});

describe('prismaDefault', () => {
  it.each<[string, Partial<FieldModel>, boolean, string | null]>([
    ['auto-increment id', { type: 'id', dbType: 'integer', autoIncrement: true }, true, 'autoincrement()'],
    ['auto-increment outside the key', { type: 'integer', dbType: 'integer', autoIncrement: true }, false, null],
    ['current time', { type: 'timestamp', dbType: 'timestamp', default: { expression: 'CURRENT_TIMESTAMP' } }, false, 'now()'],
    ['other expression', { type: 'text', dbType: 'text', default: { expression: "lower('A')" } }, false, 'dbgenerated("lower(\'A\')")'],
    ['integer from text', { type: 'integer', dbType: 'integer', default: '42' }, false, '42'],
    ['integer that is not one', { type: 'integer', dbType: 'integer', default: 'abc' }, false, null],
    ['boolean from 0', { type: 'boolean', dbType: 'boolean', default: 0 }, false, 'false'],
    ['boolean from "true"', { type: 'boolean', dbType: 'boolean', default: 'true' }, false, 'true'],
    ['float', { type: 'float', dbType: 'real', default: '1.50' }, false, '1.5'],
    ['string with quotes', { type: 'string', dbType: 'varchar(9)', default: 'a"b' }, false, '"a\\"b"'],
    ['scalar date left out', { type: 'date', dbType: 'date', default: '2020-01-01' }, false, null],
    ['unsupported type left out', { type: 'string', dbType: 'geometry', default: 'POINT(0 0)' }, false, null],
  ])('%s', (_, given, isIdField, want) => {
    const column = field('x', given);
    expect(prismaDefault(column, prismaScalar(column, 'sqlite'), isIdField)).toBe(want);
  });
});
