/**
 * News of changes between the worker processes of one instance (`--workers N`), through their
 * primary (node:cluster IPC): a worker that changed the system database tells the primary, the
 * primary tells every other serving worker, each re-reads what it keeps in memory and says so, and
 * then the primary answers the first. The write's response waits for that answer, so a change
 * acknowledged by one worker (a logout, a password change, a role, a service) is in force on every
 * worker of the instance, with or without Redis (other instances hear of it as before: Redis
 * pub/sub, the change token). A worker that does not answer within NEWS_WAIT_MS is not waited for.
 */
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';

/** How long a write waits for the other workers to apply its news. */
export const NEWS_WAIT_MS = 2000;

interface News {
  portico: 'news' | 'news-applied' | 'news-done';
  id: string;
  channel?: string;
}

function isNews(message: unknown, kind: News['portico']): message is News {
  return (message as { portico?: unknown } | null)?.portico === kind && typeof (message as { id?: unknown }).id === 'string';
}

/** In a worker: tells the other workers of the instance, and resolves once they applied it (at once elsewhere). */
export function tellWorkers(channel: string): Promise<void> {
  if (!cluster.isWorker || !process.send || !process.connected) return Promise.resolve();
  const id = randomBytes(8).toString('hex');
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve();
    };
    const onMessage = (message: unknown) => {
      if (isNews(message, 'news-done') && message.id === id) done();
    };
    // The primary answers within its own wait: this one only covers a primary that went away.
    const timer = setTimeout(done, NEWS_WAIT_MS + 1000);
    process.on('message', onMessage);
    process.send!({ portico: 'news', id, channel } satisfies News, undefined, undefined, (error) => {
      if (error) done();
    });
  });
}

/** In a worker: applies news of `channel` from the other workers; returns the unsubscribe. */
export function onWorkerNews(channel: string, apply: () => Promise<void>): () => void {
  if (!cluster.isWorker) return () => undefined;
  const onMessage = (message: unknown) => {
    if (!isNews(message, 'news') || message.channel !== channel) return;
    void apply()
      .catch(() => undefined)
      .then(() => {
        if (process.connected) process.send?.({ portico: 'news-applied', id: message.id } satisfies News);
      });
  };
  process.on('message', onMessage);
  return () => process.off('message', onMessage);
}

/** In the primary: relays news between the workers that serve (`serving`: their cluster ids). */
export function relayWorkerNews(serving: ReadonlySet<number>): void {
  const pending = new Map<string, { from: Worker; waiting: Set<number>; timer: NodeJS.Timeout }>();
  const finish = (id: string) => {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    clearTimeout(entry.timer);
    if (entry.from.isConnected()) entry.from.send({ portico: 'news-done', id } satisfies News);
  };
  cluster.on('message', (worker, message: unknown) => {
    if (isNews(message, 'news-applied')) {
      const entry = pending.get(message.id);
      entry?.waiting.delete(worker.id);
      if (entry?.waiting.size === 0) finish(message.id);
      return;
    }
    if (!isNews(message, 'news')) return;
    const others = Object.values(cluster.workers ?? {}).filter(
      (other): other is Worker => other !== undefined && other.id !== worker.id && serving.has(other.id) && other.isConnected(),
    );
    pending.set(message.id, {
      from: worker,
      waiting: new Set(others.map((other) => other.id)),
      timer: setTimeout(() => finish(message.id), NEWS_WAIT_MS),
    });
    for (const other of others) other.send(message);
    if (others.length === 0) finish(message.id);
  });
  // A worker that dies owes no answer.
  cluster.on('exit', (worker) => {
    for (const [id, entry] of pending) {
      entry.waiting.delete(worker.id);
      if (entry.waiting.size === 0) finish(id);
    }
  });
}
