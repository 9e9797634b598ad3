/**
 * Who uses the platform (GET /system/access_usage, the reference's df-system access-usage
 * audit): when each app (API key), role and user last made a request the access rules allowed,
 * and when one was last refused. Requests are noted in memory (nothing is written on the request
 * path) and written to the system database every few seconds, before a read of the audit, and on
 * close; each instance merges its notes with the stored ones by keeping the later times, so the
 * audit covers every instance. Script requests (hooks, scheduled tasks) are not client use and
 * are not noted. There is no per-request ledger: `requests_30d` and `top_services` are null and
 * `meta.ledger_available` false, as on the reference's open-source installs.
 */
import type { CompiledQuery } from 'kysely';
import type { SystemDb } from '../store/system-db.js';
import { formatTimestamp, isUniqueViolation } from '../store/system-db.js';

export type SubjectType = 'app' | 'role' | 'user';

interface Note {
  last_used_at: string | null;
  last_denied_at: string | null;
  last_service: string | null;
  last_status: number | null;
}

/** How often an instance writes what it noted. */
export const ACCESS_USAGE_FLUSH_MS = 15_000;

const later = (a: string | null, b: string | null): string | null => (a === null ? b : b === null || a >= b ? a : b);

/** The ids a client request acts as: its app (API key), its user and its role. */
export interface Subjects {
  app?: number;
  user?: number;
  role?: number;
}

/** The stored row of one subject, as the merge reads it. */
type StoredNote = Note & { subject_type: string; subject_id: number };

/**
 * The merge's three statements, compiled once (the flush runs every few seconds for the server's
 * life). Their parameters, in order: read (type, id); update (the note's four columns, type, id);
 * insert (type, id, the note's four columns).
 */
interface MergeStatements {
  read: CompiledQuery<StoredNote>;
  update: CompiledQuery;
  insert: CompiledQuery;
}

function compileMerge(db: SystemDb): MergeStatements {
  // Placeholders only: each run gives its own parameters in the order above.
  const note = { last_used_at: '', last_denied_at: '', last_service: '', last_status: 0 };
  return {
    read: db
      .selectFrom('access_usage')
      .selectAll()
      .where('subject_type', '=', 'app')
      .where('subject_id', '=', 0)
      .compile() as CompiledQuery<StoredNote>,
    update: db.updateTable('access_usage').set(note).where('subject_type', '=', 'app').where('subject_id', '=', 0).compile(),
    insert: db
      .insertInto('access_usage')
      .values({ subject_type: 'app', subject_id: 0, ...note })
      .compile(),
  };
}

const noteValues = (note: Note): unknown[] => [note.last_used_at, note.last_denied_at, note.last_service, note.last_status];

type Notes = Record<SubjectType, Map<number, Note>>;

const SUBJECT_TYPES: readonly SubjectType[] = ['app', 'user', 'role'];

const emptyNotes = (): Notes => ({ app: new Map(), user: new Map(), role: new Map() });

function record(notes: Map<number, Note>, id: number, at: string, allowed: boolean, service: string, status: number): void {
  let note = notes.get(id);
  if (note === undefined) {
    note = { last_used_at: null, last_denied_at: null, last_service: null, last_status: null };
    notes.set(id, note);
  }
  if (allowed) {
    note.last_used_at = at;
    note.last_service = service;
    note.last_status = status;
  } else note.last_denied_at = at;
}

export class AccessUsage {
  private notes = emptyNotes();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private second = Number.NaN;
  private text = '';
  private readonly statements: MergeStatements;

  constructor(
    private readonly db: SystemDb,
    private readonly now: () => number,
  ) {
    this.statements = compileMerge(db);
  }

  start(): void {
    this.timer = setInterval(() => {
      void this.flush().catch(() => undefined);
    }, ACCESS_USAGE_FLUSH_MS);
    this.timer.unref();
  }

  /**
   * Notes one client request's outcome for each of its subjects (the ids of its app, user and
   * role, each undefined when absent): allowed (with its service and status) or refused. This runs
   * on every client request: no key text, no arrays, a note object only for a subject first seen.
   */
  note(subjects: Subjects, allowed: boolean, service: string, status: number): void {
    const at = this.stamp();
    if (subjects.app !== undefined) record(this.notes.app, subjects.app, at, allowed, service, status);
    if (subjects.user !== undefined) record(this.notes.user, subjects.user, at, allowed, service, status);
    if (subjects.role !== undefined) record(this.notes.role, subjects.role, at, allowed, service, status);
  }

  /** The time as stored, made once a second at most (this runs on every request). */
  private stamp(): string {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.text = formatTimestamp(new Date(second * 1000));
    }
    return this.text;
  }

  /** Writes the notes taken since the last write (one write at a time). */
  flush(): Promise<void> {
    this.flushing = this.flushing.catch(() => undefined).then(() => this.write());
    return this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush().catch(() => undefined);
  }

  private async write(): Promise<void> {
    const notes = this.notes;
    this.notes = emptyNotes();
    for (const type of SUBJECT_TYPES) for (const [id, note] of notes[type]) await this.merge(type, id, note);
  }

  /** Writes one subject's note, merged with what the system database holds (the later times win). */
  private async merge(type: SubjectType, id: number, note: Note): Promise<void> {
    const { read, update, insert } = this.statements;
    for (let attempt = 0; attempt < 2; attempt++) {
      const { rows } = await this.db.executeQuery<StoredNote>({ ...read, parameters: [type, id] });
      const stored = rows[0];
      const usedHere = note.last_used_at !== null && (stored?.last_used_at == null || note.last_used_at >= stored.last_used_at);
      const merged: Note = {
        last_used_at: later(note.last_used_at, stored?.last_used_at ?? null),
        last_denied_at: later(note.last_denied_at, stored?.last_denied_at ?? null),
        last_service: usedHere ? note.last_service : (stored?.last_service ?? null),
        last_status: usedHere ? note.last_status : (stored?.last_status ?? null),
      };
      if (stored) {
        await this.db.executeQuery({ ...update, parameters: [...noteValues(merged), type, id] });
        break;
      }
      try {
        await this.db.executeQuery({ ...insert, parameters: [type, id, ...noteValues(merged)] });
        break;
      } catch (error) {
        // Another instance wrote the subject's first row meanwhile: merge with it.
        if (!isUniqueViolation(error) || attempt === 1) throw error;
      }
    }
  }
}
