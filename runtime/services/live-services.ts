/**
 * The services being served, by name: their model and, once first called, their open handler.
 * Services come from the frozen model at start; the system service adds, replaces and removes
 * services created through the API while the server runs.
 */
import { NotImplementedError } from '../core/errors.js';
import type { ServiceModel } from '../model/platform-model.js';
import { getServiceKind } from './registry.js';
import type { RuntimeContext, ServiceHandler } from './service-kind.js';
import { coreMessages } from '../core/messages.js';

interface Entry {
  model: ServiceModel;
  handler: Promise<ServiceHandler> | null;
  /** The handler once open (requests then skip the promise). */
  open: ServiceHandler | null;
}

export class LiveServices {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ctx: RuntimeContext,
    services: readonly ServiceModel[],
  ) {
    for (const service of services) this.entries.set(service.name, { model: service, handler: null, open: null });
  }

  /** The service's model, or undefined. Names are case-sensitive (spec). */
  get(name: string): ServiceModel | undefined {
    return this.entries.get(name)?.model;
  }

  list(): ServiceModel[] {
    return [...this.entries.values()].map((e) => e.model).sort((a, b) => a.id - b.id);
  }

  /** The handler of a service that is open already (and not stale), else undefined (then use handler()). */
  openHandler(name: string): ServiceHandler | undefined {
    const open = this.entries.get(name)?.open;
    return open && !open.stale?.() ? open : undefined;
  }

  /** The open handler of a service, opening it on first use, and anew when its back-end was replaced. */
  handler(name: string): Promise<ServiceHandler> {
    const entry = this.entries.get(name);
    if (!entry) return Promise.reject(coreMessages.serviceNotFound.error(name));
    let closing: Promise<void> = Promise.resolve();
    if (entry.open?.stale?.()) {
      closing = entry.open.close().catch(() => undefined);
      entry.open = null;
      entry.handler = null;
    }
    if (!entry.handler) {
      const kind = getServiceKind(entry.model.type);
      if (!kind) return Promise.reject(new NotImplementedError(`Service type '${entry.model.type}' is not supported.`));
      entry.handler = closing.then(() => kind.open(entry.model, this.ctx));
      // A failed open is retried on the next call rather than cached.
      entry.handler.then(
        (handler) => {
          entry.open = handler;
        },
        () => {
          if (this.entries.get(name) === entry) entry.handler = null;
        },
      );
    }
    return entry.handler;
  }

  /** Adds or replaces a service; a replaced handler is closed. */
  async put(service: ServiceModel, previousName = service.name): Promise<void> {
    await this.remove(previousName);
    this.entries.set(service.name, { model: service, handler: null, open: null });
  }

  async remove(name: string): Promise<void> {
    const entry = this.entries.get(name);
    this.entries.delete(name);
    if (entry?.handler)
      await entry.handler.then(
        (h) => h.close(),
        () => undefined,
      );
  }

  async close(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((name) => this.remove(name)));
  }
}
