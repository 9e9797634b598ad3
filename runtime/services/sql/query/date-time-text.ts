/**
 * Date and time values as text: ISO 8601 forms (`2024-03-10`, `2024-03-10T12:34:56.789Z`,
 * `2024-03-10 12:34:56+05:00`, `12:34:56`) checked against the calendar, so that every database
 * refuses `2024-02-30` alike (SQLite would store it), and written without the `T` and the zone
 * for databases that store or parse them as plain text (SQLite, MariaDB refuses a zone): the wall
 * time as written, as PostgreSQL keeps it in a column without time zone.
 */
import type { AbstractType } from '../../../model/platform-model.js';

export const DATE_TIME_TYPES: ReadonlySet<AbstractType> = new Set<AbstractType>(['date', 'time', 'datetime', 'timestamp']);

const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)(?:[Tt ](\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?)?\s*(?:[Zz]|[+-]\d\d(?::?\d\d)?)?$/;
const TIME = /^(\d{1,3}):(\d\d)(?::(\d\d)(\.\d+)?)?\s*(?:[Zz]|[+-]\d\d(?::?\d\d)?)?$/;

/**
 * MySQL's relaxed date forms: three numbers split by any punctuation (`12:00:00`), or digits only
 * (`YYMMDD...`, `YYYYMMDD...` for 8 and 14 digits). Groups: year, month, day.
 */
const RELAXED_DATE = /^(\d+)[^\d\s](\d+)[^\d\s](\d+)(?:$|[^\d])/;
const DIGITS_DATE = /^\d{6,14}$/;

/**
 * Whether MySQL would read a date with month or day 0 from a form that is not ISO 8601: MariaDB
 * (without NO_ZERO_IN_DATE) stores `12:00:00` as 2012-00-00 and `1700000000` as 2017-00-00.
 */
function zeroDatePart(value: string): boolean {
  const relaxed = RELAXED_DATE.exec(value);
  if (relaxed !== null) return Number(relaxed[2]) === 0 || Number(relaxed[3]) === 0;
  if (!DIGITS_DATE.test(value)) return false;
  const at = value.length === 8 || value.length === 14 ? 4 : 2;
  return Number(value.slice(at, at + 2)) === 0 || Number(value.slice(at + 2, at + 4)) === 0;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A clock time within a day (24:00:00 is midnight at its end, as PostgreSQL and MySQL take it). */
function validClock(hour: number, minute: number, second: number, fraction: string | undefined): boolean {
  if (hour === 24) return minute === 0 && second === 0 && (fraction === undefined || /^\.0+$/.test(fraction));
  return hour < 24 && minute < 60 && second < 60;
}

/**
 * The text to bind for a value of a date or time field: `invalid` when it has an ISO form but no
 * such date or time exists; else the text (zoneless: without `T` and zone), or null when it has no
 * ISO form (the database judges it: PostgreSQL and MySQL parse further forms), unless MySQL would
 * read a zero month or day from it.
 */
export function dateTimeText(text: string, type: AbstractType, zoneless: boolean): string | 'invalid' | null {
  const value = text.trim();
  if (type === 'time') {
    const time = TIME.exec(value);
    if (time === null) return null;
    const [, hours, minutes, seconds = '00', fraction] = time;
    // MySQL's time is a duration (up to 838 hours); only the minutes and seconds are bounded everywhere.
    if (Number(minutes) > 59 || Number(seconds) > 59) return 'invalid';
    return zoneless ? `${hours}:${minutes}:${seconds}${fraction ?? ''}` : value;
  }
  const match = DATE_TIME.exec(value);
  // A zoneless database parsing further forms (MySQL) must not turn one into a zero month or day.
  if (match === null) return zoneless && zeroDatePart(value) ? 'invalid' : null;
  const [, year, month, day, hour, minute, second = '00', fraction] = match;
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > daysIn(Number(year), Number(month))) return 'invalid';
  if (hour !== undefined && !validClock(Number(hour), Number(minute), Number(second), fraction)) return 'invalid';
  if (!zoneless) return value;
  const date = `${year}-${month}-${day}`;
  if (type === 'date') return date;
  return hour === undefined ? `${date} 00:00:00` : `${date} ${hour}:${minute}:${second}${fraction ?? ''}`;
}
