import { describe, expect, it } from 'vitest';
import { PorticoError } from '#runtime/core/errors.js';
import type { AbstractType, FieldModel } from '#runtime/model/platform-model.js';
import { postgresDialect } from '#runtime/services/sql/dialects/postgres/postgres-dialect.js';
import { sqliteDialect } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import { bareField, decoderFor, encoderFor } from '#runtime/services/sql/query/value-codec.js';

function field(type: AbstractType, dbType = type as string): FieldModel {
  return { ...bareField('f', type), label: 'F', dbType };
}

function encode(type: AbstractType, value: unknown): unknown {
  try {
    return encoderFor(field(type), sqliteDialect)(value);
  } catch (error) {
    return error instanceof PorticoError ? `${error.status}: ${error.message}` : error;
  }
}

describe('write encoders', () => {
  it.each([
    ['integer', 5, 5],
    ['integer', ' 42 ', 42],
    ['integer', '-3', -3],
    ['integer', 1.5, "400: Field 'f' must be a valid integer."],
    ['integer', 'abc', "400: Field 'f' must be a valid integer."],
    ['integer', true, "400: Field 'f' must be a valid integer."],
    ['reference', '7', 7],
    ['boolean', true, 1],
    ['boolean', false, 0],
    ['boolean', 'yes', 1],
    ['boolean', 'OFF', 0],
    ['boolean', 0, 0],
    ['boolean', 'maybe', "400: Field 'f' must be a valid boolean."],
    ['float', '1.25', 1.25],
    ['double', 3, 3],
    ['float', 'NaN', "400: Field 'f' must be a valid number."],
    ['decimal', '12.50', '12.50'],
    ['decimal', 12.5, 12.5],
    ['string', 'x', 'x'],
    ['string', 12, '12'],
    ['text', false, 'false'],
    ['string', [1], "400: Field 'f' must be a string."],
    ['datetime', '2024-01-31 10:00:00', '2024-01-31 10:00:00'],
    // SQLite keeps dates as text: ISO 8601 only, the wall time without T and zone, real dates only.
    ['datetime', '2024-01-31T10:00:00.250Z', '2024-01-31 10:00:00.25'],
    ['datetime', '2024-01-31 10:00:00.000', '2024-01-31 10:00:00'],
    ['timestamp', '2024-02-29T23:59+05:30', '2024-02-29 23:59:00'],
    ['timestamp', '2024-01-31', '2024-01-31 00:00:00'],
    // The next day's midnight, as PostgreSQL stores it (MariaDB refused the form, SQLite kept the text).
    ['timestamp', '2024-01-31T24:00:00', '2024-02-01 00:00:00'],
    ['timestamp', '2024-12-31 24:00:00.000', '2025-01-01 00:00:00'],
    ['timestamp', '0099-02-28 24:00', '0099-03-01 00:00:00'],
    ['timestamp', '9999-12-31 24:00:00', "400: Invalid value for field 'f': not a valid date or time."],
    ['date', '2024-01-31T24:00:00', '2024-01-31'],
    ['date', '2024-01-31T22:00:00-03:00', '2024-01-31'],
    ['time', '08:30:00.5Z', '08:30:00.5'],
    ['time', '8:30', '08:30:00'],
    ['time', '25:00', "400: Invalid value for field 'f': not a valid date or time."],
    ['uuid', '{0B6F3C1E6A4F4C8E9A0E1D2C3B4A5F60}', '0b6f3c1e-6a4f-4c8e-9a0e-1d2c3b4a5f60'],
    ['uuid', 'not-a-uuid', "400: Invalid value for field 'f': not a valid value for the field's type."],
    ['decimal', '1.005', '1.005'],
    ['date', '2023-02-29', "400: Invalid value for field 'f': not a valid date or time."],
    ['date', '2024-00-10', "400: Invalid value for field 'f': not a valid date or time."],
    ['datetime', '2024-01-31 24:01:00', "400: Invalid value for field 'f': not a valid date or time."],
    ['time', '10:60', "400: Invalid value for field 'f': not a valid date or time."],
    ['date', 'tomorrow', "400: Invalid value for field 'f': not a valid date or time."],
    // Beyond a double it could not be read back (SQLite stored Infinity, PostgreSQL's numeric read as null).
    ['decimal', '1e400', "400: Invalid value for field 'f': the number is out of range for the field."],
    ['decimal', '1e300', '1e300'],
    ['json', { a: [1] }, '{"a":[1]}'],
    ['json', '{"raw":true}', '{"raw":true}'],
    ['json', 'plain text', '"plain text"'],
    ['json', 3, '3'],
    ['binary', 'aGk=', Buffer.from('hi')],
    ['binary', 'a b c', "400: Field 'f' must be base64-encoded binary data."],
  ] as Array<[AbstractType, unknown, unknown]>)('%s %j -> %j', (type, value, want) => {
    expect(encode(type, value)).toEqual(want);
  });

  it('refuses strings longer than the column, counting characters as the databases do', () => {
    const name = { ...field('string', 'varchar(3)'), length: 3 };
    const encode3 = encoderFor(name, sqliteDialect);
    expect(encode3('abc')).toBe('abc');
    expect(encode3('😀é€')).toBe('😀é€');
    expect(() => encode3('abcd')).toThrow("Field 'f' value is too long: at most 3 characters.");
    expect(encoderFor({ ...field('text'), length: 3 }, sqliteDialect)('abcd')).toBe('abcd');
  });

  it('takes dates in ISO 8601 forms only, on every database, and keeps their zones for PostgreSQL', () => {
    const date = (dialect: typeof sqliteDialect) => encoderFor(field('timestamp'), dialect);
    const postgres = date({ ...sqliteDialect, dialect: 'postgres' });
    const mysql = date({ ...sqliteDialect, dialect: 'mysql' });
    expect(postgres('2024-01-31T10:00:00+02:00')).toBe('2024-01-31T10:00:00+02:00');
    expect(mysql('2024-01-31T10:00:00+02:00')).toBe('2024-01-31 10:00:00');
    expect(() => postgres('2024-02-30')).toThrow("Invalid value for field 'f'");
    // What PostgreSQL or MySQL alone would parse (now, infinity, epoch, Jan 31 2024; 2024/01/31, 20240131) is refused everywhere.
    for (const other of ['now', 'infinity', '-infinity', 'epoch', 'today', 'Jan 31 2024', '2024/01/31 10:00', '20240131', '12:00:00', '']) {
      for (const encode of [postgres, mysql, date(sqliteDialect)]) {
        expect(() => encode(other), other).toThrow("Invalid value for field 'f': not a valid date or time.");
      }
    }
    // A zone offset beyond PostgreSQL's ±15:59 is refused everywhere (SQLite and MySQL would keep the wall time).
    for (const zoned of ['2024-01-31 10:00:00+25:00', '2024-01-31T10:00:00-16', '2024-01-31 10:00:00+15:60']) {
      for (const encode of [postgres, mysql, date(sqliteDialect)]) {
        expect(() => encode(zoned), zoned).toThrow("Invalid value for field 'f': not a valid date or time.");
      }
    }
    expect(postgres('2024-01-31 10:00:00-15:59')).toBe('2024-01-31 10:00:00-15:59');
    expect(() => encoderFor(field('time'), { ...sqliteDialect, dialect: 'mysql' })('08:00:00+16:00')).toThrow('not a valid date or time');
    // MySQL's time is a duration; elsewhere a time of day.
    expect(encoderFor(field('time'), { ...sqliteDialect, dialect: 'mysql' })('100:00:00')).toBe('100:00:00');
    expect(() => encoderFor(field('time'), { ...sqliteDialect, dialect: 'postgres' })('100:00:00')).toThrow('not a valid date or time');
  });

  it('refuses decimals beyond their precision', () => {
    const price = encoderFor({ ...field('decimal', 'decimal(5,2)'), precision: 5, scale: 2 }, sqliteDialect);
    expect(price('999.99')).toBe('999.99');
    expect(price(-999.5)).toBe(-999.5);
    expect(() => price(1000)).toThrow("Invalid value for field 'f': the number is out of range for the field.");
    expect(() => price('-1000.00')).toThrow('out of range');
    // Rounded to the scale, half away from zero on the digits, as PostgreSQL and MySQL do: 999.995 is 1000.00.
    expect(price('999.994')).toBe('999.99');
    expect(price(1.005)).toBe('1.01');
    expect(price('-0.005')).toBe('-0.01');
    expect(price('-0.004')).toBe('0.00');
    expect(price('1e-7')).toBe('0.00');
    expect(price(12.5)).toBe(12.5);
    expect(() => price('999.995')).toThrow('out of range');
    expect(() => price(-999.999)).toThrow('out of range');
  });

  it('refuses a float beyond a 4-byte column (PostgreSQL real, MySQL float), naming the field', () => {
    const on = (dbType: string, dialect: 'postgres' | 'mysql' | 'sqlite') =>
      encoderFor(field('float', dbType), { ...sqliteDialect, dialect });
    expect(() => on('real', 'postgres')(1e39)).toThrow("Invalid value for field 'f': the number is out of range for the field.");
    expect(() => on('float', 'mysql')('-1e39')).toThrow("Invalid value for field 'f': the number is out of range for the field.");
    expect(on('real', 'postgres')(3.4e38)).toBe(3.4e38);
    expect(on('double precision', 'postgres')(1e300)).toBe(1e300);
    expect(on('float', 'sqlite')(1e300)).toBe(1e300);
  });

  it('refuses an integer beyond a narrower MySQL column before the database does, so the first bad field is named as on PostgreSQL', () => {
    const on = (dbType: string, dialect: 'postgres' | 'mysql' | 'sqlite') =>
      encoderFor(field('integer', dbType), { ...sqliteDialect, dialect });
    const refused = "Invalid value for field 'f': the number is out of range for the field.";
    expect(() => on('int(11)', 'mysql')('-2147483649')).toThrow(refused);
    expect(() => on('int', 'mysql')(2147483648)).toThrow(refused);
    expect(on('int(11)', 'mysql')(-2147483648)).toBe(-2147483648);
    expect(on('int unsigned', 'mysql')(4294967295)).toBe(4294967295);
    expect(() => on('int(10) unsigned', 'mysql')(-1)).toThrow(refused);
    expect(() => on('tinyint(4)', 'mysql')(128)).toThrow(refused);
    expect(on('tinyint(3) unsigned', 'mysql')(255)).toBe(255);
    expect(() => on('smallint(6)', 'mysql')('32768')).toThrow(refused);
    expect(() => on('mediumint(9)', 'mysql')(8388608)).toThrow(refused);
    expect(on('bigint(20)', 'mysql')('9223372036854775807')).toBe(9223372036854775807n);
    expect(() => on('integer', 'postgres')(2147483648)).toThrow(refused);
    expect(on('integer', 'sqlite')(2147483648)).toBe(2147483648);
  });

  it('keeps integers beyond 2^53 exact as BigInt', () => {
    expect(encode('bigint', '9007199254740993')).toBe(9007199254740993n);
  });
});

describe('read decoders', () => {
  it.each([
    ['boolean', 'tinyint(1)', 1, true],
    ['boolean', 'tinyint(1)', 0, false],
    ['boolean', 'boolean', null, null],
    // MySQL's bit(1) comes as bytes (b'0' read as true).
    ['boolean', 'bit(1)', Buffer.from([0]), false],
    ['boolean', 'bit(1)', Buffer.from([1]), true],
    ['boolean', 'boolean', 'true', true],
    ['binary', 'blob', Buffer.from('hi'), 'aGk='],
    ['uuid', 'uuid', 12345, '12345'],
    ['datetime', 'datetime', 2024, '2024'],
    ['decimal', 'numeric(10,2)', '12.50', 12.5],
    ['decimal', 'decimal(10,2)', 3.5, 3.5],
    ['json', 'json', '{"a":[1]}', { a: [1] }],
    ['json', 'json', 'not json', 'not json'],
  ] as Array<[AbstractType, string, unknown, unknown]>)('%s (%s) %j -> %j', (type, dbType, value, want) => {
    expect(decoderFor(field(type, dbType), sqliteDialect)?.(value)).toEqual(want);
  });

  it('reads a wide decimal back exactly: a number while a double holds its digits, else its plain text', () => {
    const wide = decoderFor({ ...field('decimal', 'decimal(30,10)'), precision: 30, scale: 10 }, sqliteDialect);
    expect(wide?.('12345678901234567890.0123456789')).toBe('12345678901234567890.0123456789');
    expect(wide?.('12345678901234567890.5000000000')).toBe('12345678901234567890.5');
    expect(wide?.('-0.1000000000000000000001')).toBe('-0.1000000000000000000001');
    expect(wide?.('12.5000000000')).toBe(12.5);
    expect(wide?.('0.1000000000')).toBe(0.1);
    // A double's shortest text in exponent form is compared written out.
    expect(wide?.('1000000000000000000000.0000000000')).toBe(1e21);
    expect(wide?.('0.0000001000')).toBe(1e-7);
    expect(wide?.(1.5)).toBe(1.5);
    expect(wide?.(null)).toBeNull();
    // numeric without precision is wide too; a narrow decimal stays a number.
    expect(decoderFor(field('decimal', 'numeric'), sqliteDialect)?.('9007199254740993')).toBe('9007199254740993');
    const narrow = decoderFor({ ...field('decimal', 'decimal(15,2)'), precision: 15, scale: 2 }, sqliteDialect);
    expect(narrow?.('1234567890123.45')).toBe(1234567890123.45);
  });

  it("reads a PostgreSQL numeric[]'s elements as its numeric", () => {
    const decode = decoderFor({ ...field('array', 'numeric[]') }, postgresDialect);
    expect(decode?.(['1.50', '12345678901234567890.5', null])).toEqual([1.5, '12345678901234567890.5', null]);
    expect(decode?.([['2'], ['0.1']])).toEqual([[2], [0.1]]);
    expect(decoderFor({ ...field('array', 'numeric(10,2)[]') }, postgresDialect)?.(['1.25'])).toEqual([1.25]);
  });

  it('leaves values the driver already gives as JSON alone', () => {
    expect(decoderFor(field('integer'), sqliteDialect)).toBeNull();
    expect(decoderFor(field('string', 'varchar(20)'), sqliteDialect)).toBeNull();
    expect(decoderFor(field('text'), sqliteDialect)).toBeNull();
  });
});
