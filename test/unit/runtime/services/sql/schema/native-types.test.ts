import { describe, expect, it } from 'vitest';
import { nativeTypeInfo } from '#runtime/services/sql/schema/native-types.js';

describe('nativeTypeInfo (reference 3.2 reverse mapping)', () => {
  it.each([
    ['integer', 'integer', null, null, null],
    ['INT', 'integer', null, null, null],
    ['int(11)', 'integer', 11, null, null],
    ['tinyint(1)', 'boolean', 1, null, null],
    ['tinyint(4)', 'integer', 4, null, null],
    ['boolean', 'boolean', null, null, null],
    ['bit', 'boolean', null, null, null],
    ['bigint', 'bigint', null, null, null],
    ['unsigned big int', 'bigint', null, null, null],
    ['bigint unsigned', 'bigint', null, null, null],
    ['decimal(10,2)', 'decimal', 10, 10, 2],
    ['numeric', 'decimal', null, null, null],
    ['double', 'double', null, null, null],
    ['double precision', 'double', null, null, null],
    ['real', 'float', null, null, null],
    ['float', 'float', null, null, null],
    ['float(53)', 'double', 53, null, null],
    ['money', 'money', null, null, null],
    ['timestamp', 'timestamp', null, null, null],
    ['timestamp with time zone', 'timestamp', null, null, null],
    ['datetime', 'datetime', null, null, null],
    ['date', 'date', null, null, null],
    ['time', 'time', null, null, null],
    ['blob', 'binary', null, null, null],
    ['varbinary(16)', 'binary', 16, null, null],
    ['text', 'text', null, null, null],
    ['mediumtext', 'text', null, null, null],
    ['clob', 'text', null, null, null],
    ['varchar(40)', 'string', 40, null, null],
    ['varchar(-1)', 'text', -1, null, null],
    ['nvarchar(20)', 'string', 20, null, null],
    ['char(3)', 'string', 3, null, null],
    ['uuid', 'uuid', null, null, null],
    ['json', 'json', null, null, null],
    ['jsonb', 'json', null, null, null],
    ['text[]', 'array', null, null, null],
    ['integer[]', 'array', null, null, null],
    ['', 'string', null, null, null],
    ['whatever', 'string', null, null, null],
    ['mediumint unsigned', 'integer', null, null, null],
  ])('%s -> %s', (dbType, type, length, precision, scale) => {
    expect(nativeTypeInfo(dbType)).toEqual({ type, length, precision, scale });
  });
});
