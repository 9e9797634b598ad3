/**
 * The file-service types: one engine (./file-handler.ts), a storage driver per back-end. The
 * engine and the drivers (remote ones with their client library) load when a service of their
 * type opens: the generator reads only the config schemas and OpenAPI here.
 */
import path from 'node:path';
import { InternalServerError } from '../../core/errors.js';
import type { ServiceModel } from '../../model/platform-model.js';
import type { RuntimeContext, ServiceKind } from '../service-kind.js';
import {
  configNumber,
  configString,
  DEFAULT_MAX_FILE_SIZE,
  ftpFileConfigSchema,
  localFileConfigSchema,
  sftpFileConfigSchema,
  webdavFileConfigSchema,
} from './file-config.js';
import { fileServiceOpenApi } from './file-openapi.js';
import type { FileStorage } from './file-storage.js';

type Config = Record<string, unknown>;

function fileKind(
  type: string,
  label: string,
  description: string,
  configSchema: Record<string, unknown>,
  backend: string,
  storage: (config: Config, service: ServiceModel, ctx: RuntimeContext) => Promise<FileStorage>,
): ServiceKind {
  return {
    type,
    label,
    group: 'File',
    description,
    configSchema,
    rawBody: true,
    folderComponents: true,
    describe: (service) => fileServiceOpenApi(service.name),
    async open(service, ctx) {
      const config = ctx.resolveEnv(service.config) as Config;
      const { FileHandler } = await import('./file-handler.js');
      return new FileHandler({
        name: service.name,
        backend,
        storage: await storage(config, service, ctx),
        maxFileSize: configNumber(config.max_file_size, DEFAULT_MAX_FILE_SIZE),
        urlTimeout: configNumber(config.url_timeout, 60),
      });
    },
  };
}

function remoteRoot(config: Config, service: ServiceModel, what: string): string {
  const container = configString(config.container).trim();
  if (container === '')
    throw new InternalServerError(
      `${what} file service root folder not specified. Please check configuration for file service - ${service.name}`,
    );
  return container;
}

export const localFileKind = fileKind(
  'local_file',
  'Local File Storage',
  'File service supporting the local file system.',
  localFileConfigSchema,
  'local',
  async (config, service, ctx) => {
    const container = configString(config.container).trim();
    const root = container === '' || container === 'local' ? path.join('data', service.name) : container;
    const { LocalStorage } = await import('./local-storage.js');
    return LocalStorage.open(path.resolve(ctx.baseDir, root), service.name);
  },
);

export const ftpFileKind = fileKind(
  'ftp_file',
  'FTP File Storage',
  'File service supporting the FTP protocol.',
  ftpFileConfigSchema,
  'FTP',
  async (config, service) => {
    const { FtpStorage } = await import('./ftp-storage.js');
    return new FtpStorage(service.name, {
      host: configString(config.host),
      port: configNumber(config.port, 21),
      user: configString(config.username),
      password: configString(config.password),
      secure: config.ssl === true,
      verify: config.ssl_verify !== false,
      timeout: configNumber(config.timeout, 90),
      root: remoteRoot(config, service, 'FTP'),
    });
  },
);

export const sftpFileKind = fileKind(
  'sftp_file',
  'SFTP File Storage',
  'File service supporting the SFTP protocol.',
  sftpFileConfigSchema,
  'SFTP',
  async (config, service) => {
    const { SftpStorage } = await import('./sftp-storage.js');
    return new SftpStorage(service.name, {
      host: configString(config.host),
      port: configNumber(config.port, 22),
      username: configString(config.username),
      password: configString(config.password),
      privateKey: configString(config.private_key),
      fingerprint: configString(config.host_fingerprint),
      timeout: configNumber(config.timeout, 90),
      root: remoteRoot(config, service, 'SFTP'),
    });
  },
);

export const webdavFileKind = fileKind(
  'webdav_file',
  'WebDAV File Storage',
  'File service supporting WebDAV.',
  webdavFileConfigSchema,
  'WebDAV',
  async (config, service) => {
    const baseUri = configString(config.base_uri).trim();
    if (baseUri === '')
      throw new InternalServerError(`WebDAV base URI not specified. Please check configuration for file service - ${service.name}`);
    const { WebdavStorage } = await import('./webdav-storage.js');
    return new WebdavStorage(service.name, {
      baseUri,
      username: configString(config.username),
      password: configString(config.password),
      authType: configString(config.auth_type) || 'basic',
      timeout: configNumber(config.timeout, 90),
      root: configString(config.container),
    });
  },
);

export const fileServiceKinds: ServiceKind[] = [localFileKind, ftpFileKind, sftpFileKind, webdavFileKind];
