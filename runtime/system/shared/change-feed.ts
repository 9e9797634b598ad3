/**
 * Keeps instances on one system database in step. After a write through the system or user
 * service, the instance that made it announces a change; every other instance then re-reads what
 * it keeps in memory (apps, roles, users and revoked sessions, CORS rules, limits, services).
 * With Redis the news travels by pub/sub (in force elsewhere within milliseconds); without it,
 * each instance polls a change token kept in the system database every two seconds. The token is
 * written on every change, so instances also catch up (more slowly) on news Redis lost. The
 * worker processes of one instance (`--workers N`) also hear of it through their primary, and the
 * write's response waits until they have applied it (worker-news.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CompiledQuery } from 'kysely';
import { upsert, type SystemDb } from '../store/system-db.js';
import type { RedisLink } from './redis-link.js';
import { onWorkerNews, tellWorkers } from './worker-news.js';

const TOKEN = 'change_token';
export const POLL_MS = 2000;

export class ChangeFeed {
  private readonly instance = randomBytes(6).toString('hex');
  private subscriber: Redis | null = null;
  private timer: NodeJS.Timeout | null = null;
  private seen: string | undefined;
  private reloading: Promise<void> | null = null;
  private again = false;
  /** Those waiting for a reload that begins after they asked (news from another worker). */
  private waiting: Array<() => void> = [];
  private stopWorkerNews: (() => void) | null = null;
  /** The token's read, compiled once: the poll runs it every two seconds for the server's life. */
  private readonly tokenQuery: CompiledQuery<{ value: string }>;

  constructor(
    private readonly db: SystemDb,
    private readonly redis: RedisLink | null,
    private readonly channel: string,
    private readonly reload: () => Promise<void>,
  ) {
    this.tokenQuery = db.selectFrom('system_setting').select('value').where('name', '=', TOKEN).compile();
  }

  async start(): Promise<void> {
    this.seen = await this.token();
    this.stopWorkerNews = onWorkerNews(
      this.channel,
      () =>
        new Promise<void>((resolve) => {
          this.waiting.push(resolve);
          this.refresh();
        }),
    );
    if (this.redis) {
      this.subscriber = this.redis.client.duplicate({ enableOfflineQueue: true });
      this.subscriber.on('error', () => undefined);
      this.subscriber.on('message', (_channel: string, from: string) => {
        if (from !== this.instance) this.refresh();
      });
      await this.subscriber.subscribe(this.channel);
      // Reconnected after an outage: what changed meanwhile is read once.
      this.subscriber.on('ready', () => this.refresh());
    }
    // Without Redis the token is the only path; with it, polling also covers messages lost in an outage.
    this.timer = setInterval(
      () => {
        void this.poll();
      },
      this.redis ? POLL_MS * 5 : POLL_MS,
    );
    this.timer.unref();
  }

  /** Tells the other instances that the system database changed (after the write committed). */
  async announce(): Promise<void> {
    const token = randomBytes(8).toString('hex');
    this.seen = token;
    await upsert(this.db, 'system_setting', 'name', { name: TOKEN, value: token }, { value: token });
    if (this.redis?.ready()) await this.redis.client.publish(this.channel, this.instance).catch(() => 0);
    await tellWorkers(this.channel);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.stopWorkerNews?.();
    this.subscriber?.disconnect();
  }

  private async token(): Promise<string | undefined> {
    const { rows } = await this.db.executeQuery(this.tokenQuery);
    return rows[0]?.value;
  }

  private async poll(): Promise<void> {
    const token = await this.token().catch(() => this.seen);
    if (token === this.seen) return;
    this.seen = token;
    this.refresh();
  }

  /** One reload at a time; news arriving during one leads to one more. */
  private refresh(): void {
    if (this.reloading) {
      this.again = true;
      return;
    }
    const waiting = this.waiting.splice(0);
    this.reloading = this.reload()
      .catch(() => undefined)
      .finally(() => {
        this.reloading = null;
        for (const resolve of waiting) resolve();
        if (this.again) {
          this.again = false;
          this.refresh();
        }
      });
  }
}
