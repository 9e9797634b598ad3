import { describe, expect, it } from 'vitest';
import { prismaNativeType } from '#generator/emit/prisma-native-types.js';
import type { SqlDialect } from '#runtime/model/platform-model.js';

describe('prismaNativeType', () => {
  it.each<[SqlDialect, string, string, string | null]>([
    ['postgres', 'numeric(10,2)', 'Decimal', '@db.Decimal(10, 2)'],
    ['postgres', 'numeric', 'Decimal', '@db.Decimal'],
    ['postgres', 'smallint', 'Int', '@db.SmallInt'],
    ['postgres', 'integer', 'Int', null],
    ['postgres', 'real', 'Float', '@db.Real'],
    ['postgres', 'double precision', 'Float', null],
    ['postgres', 'timestamp without time zone', 'DateTime', '@db.Timestamp(6)'],
    ['postgres', 'timestamp(3) without time zone', 'DateTime', null],
    ['postgres', 'timestamp(0) with time zone', 'DateTime', '@db.Timestamptz(0)'],
    ['postgres', 'time without time zone', 'DateTime', '@db.Time(6)'],
    ['postgres', 'time with time zone', 'DateTime', '@db.Timetz(6)'],
    ['postgres', 'character varying', 'String', '@db.VarChar'],
    ['postgres', 'character varying(40)', 'String', '@db.VarChar(40)'],
    ['postgres', 'character(1)', 'String', '@db.Char(1)'],
    ['postgres', 'json', 'Json', '@db.Json'],
    ['postgres', 'jsonb', 'Json', null],
    ['postgres', 'uuid', 'String', '@db.Uuid'],
    ['mysql', 'int(10) unsigned', 'Int', '@db.UnsignedInt'],
    ['mysql', 'tinyint(1)', 'Boolean', null],
    ['mysql', 'tinyint(4)', 'Int', '@db.TinyInt'],
    ['mysql', 'mediumint(9)', 'Int', '@db.MediumInt'],
    ['mysql', 'bigint(20) unsigned', 'BigInt', '@db.UnsignedBigInt'],
    ['mysql', 'varchar(191)', 'String', null],
    ['mysql', 'varchar(100)', 'String', '@db.VarChar(100)'],
    ['mysql', 'mediumtext', 'String', '@db.MediumText'],
    ['mysql', 'longtext', 'Json', null],
    ['mysql', 'datetime', 'DateTime', '@db.DateTime(0)'],
    ['mysql', 'datetime(3)', 'DateTime', null],
    ['mysql', 'timestamp', 'DateTime', '@db.Timestamp(0)'],
    ['mysql', 'binary(16)', 'Bytes', '@db.Binary(16)'],
    ['mysql', 'year(4)', 'Int', '@db.Year'],
    ['sqlite', 'varchar(40)', 'String', null],
  ])('%s %s as %s -> %s', (dialect, dbType, scalar, native) => {
    expect(prismaNativeType(dbType, dialect, scalar)).toBe(native);
  });
});
