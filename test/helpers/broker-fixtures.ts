/** Servers with broker services for tests: a listening server (SSE needs real HTTP) and an SSE reader. */
import http from 'node:http';
import type { ServiceModel } from '#runtime/model/platform-model.js';

/** A service declared as in platform.yaml. */
export function brokerService(id: number, name: string, type: string, config: Record<string, unknown>): ServiceModel {
  return { id, name, label: name, type, description: '', is_active: true, origin: 'platform', kind: 'plain', config };
}

export interface EventReader {
  /** The next `message` event's data, parsed; rejects after `ms`. */
  next(ms?: number): Promise<any>;
  close(): void;
}

/** Opens a Server-Sent Events stream and reads its `message` events (node:http, so that close() ends the connection at once). */
export async function openEvents(url: string, headers: Record<string, string>): Promise<EventReader> {
  const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } });
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  if (response.statusCode !== 200) {
    let text = '';
    for await (const chunk of response) text += chunk;
    throw new Error(`stream answered ${response.statusCode}: ${text}`);
  }
  response.setEncoding('utf8');
  let buffer = '';
  const events: any[] = [];
  response.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (data !== '') events.push(JSON.parse(data));
      end = buffer.indexOf('\n\n');
    }
  });
  response.on('error', () => undefined);
  request.on('error', () => undefined);
  return {
    async next(ms = 5000) {
      const started = Date.now();
      while (events.length === 0) {
        if (Date.now() - started > ms) throw new Error('no event in time');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return events.shift();
    },
    close: () => request.destroy(),
  };
}
