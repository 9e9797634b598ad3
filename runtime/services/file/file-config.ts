/** Config schemas of the file-service types (reference §1.1) and what every type shares. */

export const DEFAULT_MAX_FILE_SIZE = 1024 * 1024 * 1024;

const common = {
  max_file_size: {
    type: 'integer',
    minimum: 1,
    title: 'Max File Size',
    description: 'Largest file accepted in one upload, in bytes (413 beyond). Default 1 GiB.',
  },
  url_timeout: {
    type: 'integer',
    minimum: 1,
    title: 'URL Import Timeout',
    description: 'Seconds an import from a URL (`url=`) may take. Default 60.',
  },
};

const schema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  additionalProperties: true,
  required,
  properties: { ...properties, ...common },
});

export const localFileConfigSchema = schema({
  container: {
    type: 'string',
    title: 'Root Folder',
    description: 'The folder served: absolute, or relative to the platform directory. Default: data/{service name}. Created when missing.',
  },
});

const remoteCredentials = {
  username: { type: 'string', description: 'User name to log in with.' },
  password: { type: 'string', format: 'password', description: 'Password to log in with.' },
};

export const ftpFileConfigSchema = schema(
  {
    host: { type: 'string', minLength: 1, description: 'FTP server host name or address.' },
    port: { type: 'integer', minimum: 1, maximum: 65535, default: 21, description: 'FTP server port.' },
    ...remoteCredentials,
    ssl: { type: 'boolean', default: false, title: 'SSL', description: 'Explicit FTPS (AUTH TLS) on the control and data connections.' },
    ssl_verify: {
      type: 'boolean',
      default: true,
      title: 'Verify Certificate',
      description: "Check the server's TLS certificate (turn off only for self-signed test servers).",
    },
    passive: {
      type: 'boolean',
      default: true,
      description: 'Passive mode (the only mode supported: the client opens the data connections).',
    },
    timeout: { type: 'integer', minimum: 1, default: 90, description: 'Seconds to wait for the server.' },
    container: { type: 'string', minLength: 1, title: 'Root folder', description: 'Enter a full path for a root folder on the server.' },
  },
  ['host', 'container'],
);

export const sftpFileConfigSchema = schema(
  {
    host: { type: 'string', minLength: 1, description: 'SSH server host name or address.' },
    port: { type: 'integer', minimum: 1, maximum: 65535, default: 22, description: 'SSH server port.' },
    ...remoteCredentials,
    timeout: { type: 'integer', minimum: 1, default: 90, description: 'Seconds to wait for the server.' },
    host_fingerprint: {
      type: 'string',
      title: 'Host Finger Print',
      description:
        "Expected SHA-256 fingerprint of the server's host key (`SHA256:…` as ssh-keygen -l prints it, or hex); the connection is refused when it differs.",
    },
    private_key: { type: 'string', description: 'Private key (PEM/OpenSSH text) to log in with instead of, or besides, the password.' },
    container: { type: 'string', minLength: 1, title: 'Root folder', description: 'Enter a full path for a root folder on the server.' },
  },
  ['host', 'container'],
);

export const webdavFileConfigSchema = schema(
  {
    base_uri: {
      type: 'string',
      minLength: 1,
      title: 'Base URI',
      description: 'The server, e.g. http://example.com (the sub-path goes in the root folder).',
    },
    ...remoteCredentials,
    auth_type: {
      enum: ['none', 'basic', 'digest'],
      default: 'basic',
      description: 'How to authenticate (basic or digest; none sends no credentials).',
    },
    timeout: { type: 'integer', minimum: 1, default: 90, description: 'Seconds to wait for the server.' },
    container: {
      type: 'string',
      default: '',
      title: 'Root folder/Path prefix',
      description: "Path on the server under which the service's files live.",
    },
  },
  ['base_uri'],
);

/** A number from a config value, else the fallback. */
export function configNumber(value: unknown, fallback: number): number {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : fallback;
}

export function configString(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}
