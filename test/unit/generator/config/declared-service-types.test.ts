/**
 * Services of the file, email and remote HTTP types declared in platform.yaml: checked against
 * the real registry's config schemas (required fields, types), with positions when wrong.
 */
import { expect, it } from 'vitest';
import { parseConfig } from '#generator/config/load-config.js';
import { DiagnosticError, formatDiagnostic } from '#generator/diagnostics.js';

const DECLARED = `platform:
  name: demo
services:
  - { name: uploads, type: local_file, config: { container: data/uploads, max_file_size: 1048576 } }
  - { name: partner, type: sftp_file, config: { host: sftp.example.com, username: app, password: "\${env:SFTP_PW}", container: /in } }
  - { name: ftp, type: ftp_file, config: { host: ftp.example.com, ssl: true, container: /pub } }
  - { name: dav, type: webdav_file, config: { base_uri: "https://dav.example.com", auth_type: digest, container: /files } }
  - { name: mailer, type: smtp_email, config: { host: smtp.example.com, port: 465, encryption: ssl } }
  - { name: weather, type: rws, config: { base_url: "https://api.example.com/v2", headers: [{ name: X-Key, value: "{key}", action: [GET] }], cache_enabled: true, cache_ttl: 60 } }
`;

it('accepts services of every new type declared in platform.yaml', () => {
  const { config } = parseConfig(DECLARED, 'platform.yaml', { env: { SFTP_PW: 'pw' } });
  const types = Object.fromEntries(config.services.map((service) => [service.name, service.type]));
  expect(types).toMatchObject({
    uploads: 'local_file',
    partner: 'sftp_file',
    ftp: 'ftp_file',
    dav: 'webdav_file',
    mailer: 'smtp_email',
    weather: 'rws',
  });
  // Schema defaults are filled in (a port the config left out).
  expect(config.services.find((s) => s.name === 'partner')?.config.port).toBe(22);
});

it('reports missing and wrong config fields of these types at their position', () => {
  const text = `platform:
  name: demo
services:
  - { name: ftp, type: ftp_file, config: { container: /pub } }
  - { name: mailer, type: smtp_email, config: { host: smtp.example.com, encryption: maybe } }
  - { name: weather, type: rws, config: { timeout: soon } }
`;
  let messages: string[] = [];
  try {
    parseConfig(text, 'platform.yaml', { env: {} });
  } catch (error) {
    if (!(error instanceof DiagnosticError)) throw error;
    messages = error.diagnostics.map(formatDiagnostic);
  }
  expect(messages.join('\n')).toMatch(/platform\.yaml:4:.*host/);
  expect(messages.join('\n')).toMatch(/platform\.yaml:5:.*encryption/);
  expect(messages.join('\n')).toMatch(/platform\.yaml:6:.*(base_url|timeout)/);
});
