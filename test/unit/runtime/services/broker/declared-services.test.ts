/** The cache, broker and MCP types declared in platform.yaml: their config schemas fill defaults and refuse bad values, positioned. */
import { describe, expect, it } from 'vitest';
import { serviceKindRegistry } from '#generator/config/kind-registry.js';
import { parseConfig } from '#generator/config/load-config.js';
import { DiagnosticError, formatDiagnostic } from '#generator/diagnostics.js';

const parse = (text: string) => parseConfig(text, 'platform.yaml', { env: { AMQP_URL: 'amqp://x' }, kinds: serviceKindRegistry }).config;

describe('cache, broker and MCP services in platform.yaml', () => {
  it("fills each type's defaults", () => {
    const config = parse(`
platform: { name: demo }
services:
  - { name: cache, type: cache_redis }
  - { name: events, type: amqp, config: { url: "\${env:AMQP_URL}", queues: [{ name: q }] } }
  - { name: iot, type: mqtt, config: { subscriptions: [{ topic: "s/#" }] } }
  - { name: agent, type: mcp }
`);
    const config_ = (name: string) => config.services.find((s) => s.name === name)!.config;
    expect(config_('cache')).toMatchObject({ host: '127.0.0.1', port: 6379, default_ttl: 300, timeout_ms: 5000 });
    expect(config_('events')).toMatchObject({
      port: 5672,
      vhost: '/',
      persistent: true,
      exchange: '',
      queues: [{ name: 'q', durable: true }],
    });
    expect(config_('iot')).toMatchObject({ port: 1883, qos: 1, retain: false, clean_session: true });
    expect(config_('agent')).toMatchObject({ app: 'admin', allow_writes: true });
  });

  it('refuses bad values with their position', () => {
    try {
      parse(`
platform: { name: demo }
services:
  - { name: iot, type: mqtt, config: { qos: 3 } }
  - { name: events, type: amqp, config: { exchanges: [{ name: x, type: sideways }] } }
`);
      throw new Error('expected the config to be rejected');
    } catch (error) {
      if (!(error instanceof DiagnosticError)) throw error;
      const text = error.diagnostics.map(formatDiagnostic).join('\n');
      expect(text).toMatch(/platform\.yaml:4:\d+/);
      expect(text).toMatch(/platform\.yaml:5:\d+/);
    }
  });
});

describe('build-time OpenAPI of these types', () => {
  it('documents their endpoints from the model alone (no server needed)', async () => {
    const { modelFragment } = await import('#runtime/openapi/model-fragment.js');
    const model = (type: string) => ({
      id: 1,
      name: 'svc',
      label: 'Svc',
      type,
      description: '',
      is_active: true,
      origin: 'platform' as const,
      kind: 'plain' as const,
      config: {},
    });
    expect(Object.keys(modelFragment(model('cache_redis')).paths)).toEqual(['/', '/{key}']);
    expect(Object.keys(modelFragment(model('amqp')).paths)).toEqual(['/', '/pub', '/pub/{topic}', '/sub', '/sub/{topic}']);
    expect(Object.keys(modelFragment(model('mqtt')).paths)).toEqual(['/', '/pub', '/pub/{topic}', '/sub', '/sub/{topic}']);
    expect(modelFragment(model('mcp')).paths['/']!.get!.summary).toContain('/mcp/svc');
  });
});
