/**
 * Deadlines of the user's code in flight (hooks, custom endpoint handlers), checked by one timer
 * every SWEEP_MS while any is waiting: a timer of its own per call made Node create and drop its
 * timer list on every request. A call is cut off between its deadline and SWEEP_MS later. The
 * calls are a linked list: a settled call is unlinked at once (so it dies young), without the
 * table a Set reallocates as it empties and fills again.
 */
const SWEEP_MS = 50;

interface Deadline {
  at: number;
  expire: () => void;
  previous: Deadline | null;
  next: Deadline | null;
}

class Deadlines {
  private first: Deadline | null = null;
  private last: Deadline | null = null;
  private timer: NodeJS.Timeout | null = null;

  watch(ms: number, expire: () => void): Deadline {
    const entry: Deadline = { at: Date.now() + ms, expire, previous: this.last, next: null };
    if (this.last === null) this.first = entry;
    else this.last.next = entry;
    this.last = entry;
    this.timer ??= setInterval(this.sweep, SWEEP_MS).unref();
    return entry;
  }

  release(entry: Deadline): void {
    if (entry.previous === null) {
      if (this.first !== entry) return; // already released
      this.first = entry.next;
    } else entry.previous.next = entry.next;
    if (entry.next === null) this.last = entry.previous;
    else entry.next.previous = entry.previous;
    entry.previous = null;
    entry.next = null;
  }

  private readonly sweep = (): void => {
    const now = Date.now();
    for (let entry = this.first; entry !== null; ) {
      const next = entry.next;
      if (entry.at <= now) {
        this.release(entry);
        entry.expire();
      }
      entry = next;
    }
    if (this.first === null && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  };
}

const deadlines = new Deadlines();

/** What a promise settles to, or the error `expired` makes once `ms` have passed without it settling. */
export function withDeadline<T>(pending: PromiseLike<T>, ms: number, expired: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    const deadline = deadlines.watch(ms, () => reject(expired()));
    pending.then(
      (value) => {
        deadlines.release(deadline);
        resolve(value);
      },
      (error: unknown) => {
        deadlines.release(deadline);
        reject(error);
      },
    );
  });
}

/** Whether a value is a promise (or any thenable): what the user's code returned synchronously needs no deadline. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
