/**
 * What kind of database a system database target names (a SQLite path, `:memory:` or a URL):
 * apart from system-db.ts, so that the generator's config checks read it without loading drivers.
 */

/** The database kinds a system database can be. */
export type SystemDbKind = 'sqlite' | 'postgres' | 'mysql';

const URL_KINDS: ReadonlyArray<[string, SystemDbKind]> = [
  ['postgres://', 'postgres'],
  ['postgresql://', 'postgres'],
  ['mysql://', 'mysql'],
  ['mariadb://', 'mysql'],
];

/** The kind of database a system database target (file path, `:memory:` or URL) names; a scheme in any case. */
export function systemDbKind(target: string): SystemDbKind {
  const lower = target.slice(0, 16).toLowerCase();
  return URL_KINDS.find(([prefix]) => lower.startsWith(prefix))?.[1] ?? 'sqlite';
}

/**
 * A target that starts like a URL (`scheme://`) of no system database kind (`postgress://`,
 * `redis://`, `sqlite://`): a message saying so, else null. Read as a SQLite path it would have
 * made a file in a folder named after the scheme, and kept the platform's data there.
 */
export function unknownSystemDbScheme(target: string): string | null {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(target)?.[1];
  if (scheme === undefined || systemDbKind(target) !== 'sqlite') return null;
  return `'${scheme}://' is not a system database URL: give a postgres://, postgresql://, mysql:// or mariadb:// URL, or the path of a SQLite file.`;
}
