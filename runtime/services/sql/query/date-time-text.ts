/**
 * Date and time values as text: the ISO 8601 forms the API reads back (`2024-03-10`,
 * `2024-03-10T12:34:56.789Z`, `2024-03-10 12:34:56+05:00`, `12:34:56`) checked against the
 * calendar, so that every database refuses `2024-02-30` alike (SQLite would store it). Other forms
 * are refused on every database: PostgreSQL would take `now`, `infinity`, `epoch` or `Jan 31 2024`
 * and MySQL `2024/01/31` or `20240131` where SQLite cannot, so the same request would store a
 * value on one and fail on another. For databases that store or parse them as plain text (SQLite,
 * MariaDB refuses a zone) they are written without the `T` and the zone (the wall time as written,
 * as PostgreSQL keeps it in a column without time zone), with two-digit hours and without trailing
 * zeros in the fraction, so that SQLite compares them as the others compare the values.
 */
import type { AbstractType, SqlDialect } from '../../../model/platform-model.js';

export const DATE_TIME_TYPES: ReadonlySet<AbstractType> = new Set<AbstractType>(['date', 'time', 'datetime', 'timestamp']);

const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)(?:[Tt ](\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?)?\s*(?:[Zz]|[+-](\d\d)(?::?(\d\d))?)?$/;
const TIME = /^(\d{1,3}):(\d\d)(?::(\d\d)(\.\d+)?)?\s*(?:[Zz]|[+-](\d\d)(?::?(\d\d))?)?$/;

/**
 * A zone offset PostgreSQL takes (up to 15:59 either way; real zones reach 14:00): a larger one is
 * refused on every database, not written as the wall time elsewhere and refused by PostgreSQL alone.
 */
function validOffset(hours: string | undefined, minutes: string | undefined): boolean {
  return hours === undefined || (Number(hours) <= 15 && Number(minutes ?? 0) <= 59);
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A clock time within a day (24:00:00 is midnight at its end, as PostgreSQL and MySQL take it). */
function validClock(hour: number, minute: number, second: number, fraction: string | undefined): boolean {
  if (hour === 24) return minute === 0 && second === 0 && (fraction === undefined || /^\.0+$/.test(fraction));
  return hour < 24 && minute < 60 && second < 60;
}

/** `.500` as `.5`, `.000` as nothing: as the databases give fractions back. */
function trimFraction(fraction: string | undefined): string {
  const trimmed = (fraction ?? '').replace(/0+$/, '');
  return trimmed === '.' ? '' : trimmed;
}

/**
 * The text to bind for a value of a date or time field of a database of `dialect`, or `invalid`
 * when it is not in an ISO 8601 form or no such date or time exists.
 */
export function dateTimeText(text: string, type: AbstractType, dialect: SqlDialect): string | 'invalid' {
  const value = text.trim();
  const zoneless = dialect !== 'postgres';
  if (type === 'time') {
    const time = TIME.exec(value);
    if (time === null) return 'invalid';
    const [, hours, minutes, seconds = '00', fraction, zoneHours, zoneMinutes] = time;
    if (Number(minutes) > 59 || Number(seconds) > 59 || !validOffset(zoneHours, zoneMinutes)) return 'invalid';
    // MySQL's time is a duration (up to 838 hours); elsewhere it is a time of day.
    if (dialect !== 'mysql' && !validClock(Number(hours), Number(minutes), Number(seconds), fraction)) return 'invalid';
    return zoneless ? `${hours.padStart(2, '0')}:${minutes}:${seconds}${trimFraction(fraction)}` : value;
  }
  const match = DATE_TIME.exec(value);
  if (match === null) return 'invalid';
  const [, year, month, day, hour, minute, second = '00', fraction, zoneHours, zoneMinutes] = match;
  // There is no year 0 (1 BC precedes 1 AD): PostgreSQL refused it naming no field, MySQL and SQLite stored it.
  if (year === '0000') return 'invalid';
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > daysIn(Number(year), Number(month))) return 'invalid';
  if (!validOffset(zoneHours, zoneMinutes)) return 'invalid';
  if (hour !== undefined && !validClock(Number(hour), Number(minute), Number(second), fraction)) return 'invalid';
  const midnightAfter = hour === '24' ? nextDay(Number(year), Number(month), Number(day)) : null;
  if (hour === '24' && midnightAfter === null) return 'invalid';
  if (!zoneless) return value;
  const date = `${year}-${month}-${day}`;
  if (type === 'date') return date;
  if (hour === undefined) return `${date} 00:00:00`;
  // 24:00:00 is the next day's midnight, as PostgreSQL stores it (MariaDB refuses the form, SQLite would keep the text).
  if (midnightAfter !== null) return midnightAfter;
  return `${date} ${hour}:${minute}:${second}${trimFraction(fraction)}`;
}

/** Midnight at the start of the day after a date, or null past year 9999. */
function nextDay(year: number, month: number, day: number): string | null {
  const next = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0 to 99 as 1900 to 1999.
  next.setUTCFullYear(year, month - 1, day + 1);
  if (next.getUTCFullYear() > 9999) return null;
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(next.getUTCFullYear(), 4)}-${pad(next.getUTCMonth() + 1)}-${pad(next.getUTCDate())} 00:00:00`;
}
