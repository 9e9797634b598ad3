/** Servers with broker services for tests: a listening server (SSE needs real HTTP) and an SSE reader. */
import type { ServiceModel } from '../../runtime/model/platform-model.js';

/** A service declared as in platform.yaml. */
export function brokerService(id: number, name: string, type: string, config: Record<string, unknown>): ServiceModel {
  return { id, name, label: name, type, description: '', is_active: true, origin: 'platform', kind: 'plain', config };
}

export interface EventReader {
  /** The next `message` event's data, parsed; rejects after `ms`. */
  next(ms?: number): Promise<any>;
  close(): void;
}

/** Opens a Server-Sent Events stream and reads its `message` events. */
export async function openEvents(url: string, headers: Record<string, string>): Promise<EventReader> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  if (response.status !== 200) throw new Error(`stream answered ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const events: any[] = [];
  const waiting: Array<() => void> = [];
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
          if (data !== '') {
            events.push(JSON.parse(data));
            for (const wake of waiting.splice(0)) wake();
          }
          end = buffer.indexOf('\n\n');
        }
      }
    } catch { /* aborted */ }
  })();
  return {
    async next(ms = 5000) {
      const started = Date.now();
      while (events.length === 0) {
        if (Date.now() - started > ms) throw new Error('no event in time');
        await new Promise<void>((resolve) => { waiting.push(resolve); setTimeout(resolve, 100); });
      }
      return events.shift();
    },
    close: () => abort.abort(),
  };
}
