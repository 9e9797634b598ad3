/**
 * Runs the active scheduled tasks of /system/scheduler. Every instance looks every few seconds;
 * a task whose next run (kept in the system database, scheduler-resource.ts) has come is claimed
 * by moving that time on by whole periods with a compare-and-set update: on one system database
 * (every worker of PORTICO_WORKERS, every server sharing it) exactly one instance wins each
 * period, whatever the number of instances. The winner calls the service in process, as the
 * hooks' `ctx.api` does (as a script request), for the administrator who created the task. A
 * failure (status 300 or more) is kept as the task's log (status and body, or the error); a
 * success clears it.
 */
import type { FastifyBaseLogger } from 'fastify';
import { PorticoError } from '../../core/errors.js';
import type { Acting, Serve } from '../../http/api-dispatch.js';
import type { Caller } from '../../http/identify.js';
import { inProcessApi } from '../../http/in-process-api.js';
import type { PlatformContext } from '../../http/platform-context.js';
import type { Verb } from '../../model/platform-model.js';
import type { ApiQuery } from '../../services/service-api.js';
import type { SchedulerTaskTable } from '../store/system-tables.js';
import { reloadPlatform } from '../shared/reload-platform.js';
import { formatTimestamp, upsert } from '../store/system-db.js';
import { MINUTE_MS, nextRunSetting } from './scheduler-resource.js';

/** How often an instance looks for due tasks: a task runs at most this late. */
export const SCHEDULER_TICK_MS = 10_000;

/** The most of a response kept in the log (MySQL's text column holds 64 KB). */
const LOG_CONTENT_MAX = 16_000;

type Task = Omit<SchedulerTaskTable, 'id'> & { id: number };

export interface TaskOutcome {
  task_id: number;
  status_code: number;
}

export class TaskScheduler {
  private timer: NodeJS.Timeout | null = null;
  /** Runs started by the timer and not finished (close waits for them). */
  private readonly running = new Map<number, Promise<TaskOutcome>>();
  /** The timer's current look for due tasks, if any (close waits for it). */
  private looking: Promise<void> | null = null;

  constructor(
    private readonly ctx: PlatformContext,
    private readonly serve: Serve,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.looking) return;
      const now = this.ctx.clock.now();
      this.looking = this.claimDue(now)
        .then((tasks) => {
          for (const task of tasks) this.track(task, now);
        })
        .catch((error: unknown) => this.log.warn({ err: error }, 'Portico: could not read the scheduled tasks.'))
        .finally(() => {
          this.looking = null;
        });
    }, SCHEDULER_TICK_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.looking;
    await Promise.allSettled(this.running.values());
  }

  /** Claims and runs the tasks due at `now`, and waits for their outcomes (the timer's work, for a clock of the caller's). */
  async runDue(now: number): Promise<TaskOutcome[]> {
    const tasks = await this.claimDue(now);
    return Promise.all(tasks.map((task) => this.run(task, now)));
  }

  private track(task: Task, now: number): void {
    const run = this.run(task, now).finally(() => this.running.delete(task.id));
    this.running.set(task.id, run);
  }

  /** The active tasks due at `now` that this instance claimed (none another instance claimed for this period). */
  async claimDue(now: number): Promise<Task[]> {
    const db = this.ctx.db;
    const tasks = ((await db.selectFrom('scheduler_task').selectAll().execute()) as Task[]).filter(
      (task) => Number(task.is_active) === 1 && !this.running.has(task.id),
    );
    if (tasks.length === 0) return [];
    const names = tasks.map((task) => nextRunSetting(task.id));
    const stored = new Map(
      (await db.selectFrom('system_setting').select(['name', 'value']).where('name', 'in', names).execute()).map((row) => [
        row.name,
        row.value,
      ]),
    );
    const claimed: Task[] = [];
    for (const task of tasks) {
      const name = nextRunSetting(task.id);
      const period = Math.max(1, task.frequency) * MINUTE_MS;
      const due = stored.get(name);
      if (due === undefined) {
        // A task written without its next run (an import): its first period starts now, the same on every instance.
        await upsert(db, 'system_setting', 'name', { name, value: String(now + period) });
        continue;
      }
      const at = Number(due);
      if (!Number.isFinite(at) || at > now) continue;
      // The next run after now, on the task's own beat (runs missed while no instance ran are not made up).
      const next = at + (Math.floor((now - at) / period) + 1) * period;
      const result = await db
        .updateTable('system_setting')
        .set({ value: String(next) })
        .where('name', '=', name)
        .where('value', '=', due)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) claimed.push(task);
    }
    return claimed;
  }

  /** Calls the task's service as its creator; keeps a failure as its log, clears the log on a success. */
  async run(task: Task, now: number): Promise<TaskOutcome> {
    let status: number;
    let content: unknown;
    try {
      const response = await this.call(task);
      status = response.status;
      content = response.body;
    } catch (error) {
      if (error instanceof PorticoError) {
        status = error.status;
        content = error.toBody();
      } else {
        status = 500;
        content = { error: { code: 500, message: error instanceof Error ? error.message : String(error) } };
        this.log.error({ err: error }, `Portico: scheduled task '${task.name}' failed.`);
      }
    }
    // The log is the last failure, as the reference keeps it: the consoles show any log as an error
    // (df-admin-app's error-marked Log tab, df-admin-interface's Log column), so a success clears it.
    if (status < 300) {
      await this.ctx.db
        .deleteFrom('task_log')
        .where('task_id', '=', task.id)
        .execute()
        .catch((error: unknown) => this.log.warn({ err: error }, `Portico: could not clear the log of scheduled task '${task.name}'.`));
      return { task_id: task.id, status_code: status };
    }
    const text = (typeof content === 'string' ? content : (JSON.stringify(content) ?? '')).slice(0, LOG_CONTENT_MAX);
    const date = formatTimestamp(new Date(now));
    await upsert(
      this.ctx.db,
      'task_log',
      'task_id',
      { task_id: task.id, status_code: status, content: text, created_date: date, last_modified_date: date },
      { status_code: status, content: text, last_modified_date: date },
    ).catch((error: unknown) => {
      // Deleted while it ran: nothing to keep the log for.
      this.log.warn({ err: error }, `Portico: could not keep the log of scheduled task '${task.name}'.`);
    });
    return { task_id: task.id, status_code: status };
  }

  private async call(task: Task) {
    const service = (await this.ctx.db.selectFrom('service').select('name').where('id', '=', task.service_id).executeTakeFirst())?.name;
    if (service === undefined) throw new PorticoError(404, `The service of scheduled task '${task.name}' no longer exists.`);
    // A service created on another instance moments ago: catch up now rather than at the change feed's next look.
    if (this.ctx.services.get(service) === undefined) await reloadPlatform(this.ctx);
    const user = task.created_by_id === null ? null : await this.ctx.directory.user(task.created_by_id);
    if (user === null || !user.isActive || !user.isAdminAccount) {
      throw new PorticoError(401, `The administrator who created scheduled task '${task.name}' no longer exists or is inactive.`);
    }
    // A restricted administrator's role is theirs through the console's app (restricted-admins.ts): without it none applies.
    const app = user.isSysAdmin ? null : ([...this.ctx.directory.appsByKey.values()].find((a) => a.name === 'admin') ?? null);
    const caller: Caller = { apiKeyGiven: false, app, user, session: null, tokenError: null };
    const acting: Acting = { caller, requestor: 'script', elevated: false, depth: 0 };
    const [path, search = ''] = task.component.split('?', 2);
    const query: ApiQuery = Object.fromEntries(new URLSearchParams(search));
    let body: unknown;
    if (task.payload !== null && task.payload.trim() !== '') {
      try {
        body = JSON.parse(task.payload);
      } catch {
        throw new PorticoError(400, `The payload of scheduled task '${task.name}' is not JSON.`);
      }
    }
    const origin = { host: 'localhost', clientIp: '127.0.0.1', log: this.log };
    return inProcessApi(this.ctx, this.serve, acting, origin).call(service, task.verb as Verb, path, { query, body });
  }
}
