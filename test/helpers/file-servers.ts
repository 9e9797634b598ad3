/**
 * The SFTP, FTP and WebDAV servers of .ci/setup-file-servers.sh (override with
 * PORTICO_TEST_SFTP_URL, PORTICO_TEST_FTP_URL, PORTICO_TEST_WEBDAV_URL, e.g.
 * `sftp://user:pass@127.0.0.1:2222/srv/portico-files`). When a server is unreachable its tests
 * are skipped with a message on stderr, and fail under CI=true.
 */
import net from 'node:net';

export type FileServer = 'sftp' | 'ftp' | 'webdav';

const DEFAULTS: Record<FileServer, string> = {
  sftp: 'sftp://portico-files:portico-files@127.0.0.1:2222/srv/portico-files',
  ftp: 'ftp://portico-files:portico-files@127.0.0.1:2121/srv/portico-files',
  webdav: 'http://portico-files:portico-files@127.0.0.1:8088/',
};

export interface FileServerAddress {
  host: string;
  port: number;
  username: string;
  password: string;
  /** Folder under which tests make their roots. */
  base: string;
  /** http://host:port for WebDAV. */
  origin: string;
}

export function fileServer(kind: FileServer): FileServerAddress {
  const url = new URL(process.env[`PORTICO_TEST_${kind.toUpperCase()}_URL`] ?? DEFAULTS[kind]);
  return {
    host: url.hostname,
    port: Number(url.port),
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    base: decodeURIComponent(url.pathname).replace(/\/+$/, ''),
    origin: `${url.protocol}//${url.host}`,
  };
}

function ping(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, timeout: 3000 }, () => {
      socket.end();
      resolve();
    });
    socket.on('error', reject);
    socket.on('timeout', () => {
      socket.destroy();
      reject(new Error('timeout'));
    });
  });
}

/** Whether the server answers: use as `describe.skipIf(!(await requireFileServer('sftp')))`. */
export async function requireFileServer(kind: FileServer): Promise<boolean> {
  const { host, port } = fileServer(kind);
  try {
    await ping(host, port);
    return true;
  } catch (error) {
    const message = `The ${kind.toUpperCase()} server at ${host}:${port} is unreachable (${(error as Error).message}); start it with .ci/setup-file-servers.sh (as root)`;
    if (process.env.CI === 'true') throw new Error(`${message}; CI needs it.`);
    process.stderr.write(`\n[skipped] ${message}: its tests are skipped.\n`);
    return false;
  }
}
