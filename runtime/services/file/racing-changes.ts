/**
 * A folder deleted while another request writes into it: the back-ends refuse one of the two in
 * their own words (OpenSSH's bare "Failure" for a folder no longer empty, vsftpd's 553 for a file
 * whose folder is gone, rclone's 500s), which read as the server's failure (502). When the storage
 * shows that the other request's change is the cause, the refusal is a 409, the spec's
 * "concurrent modification", naming what changed; otherwise the back-end's failure stands.
 */
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { RemoteFailure } from '../remote-errors.js';
import type { FileStorage } from './file-storage.js';
import { parentOf, shown } from './file-paths.js';

/**
 * A write's failure a folder deleted meanwhile may explain: any refusal of the back-end (rclone
 * says 403 for a file whose folder is gone) or a "not found"; the folder's absence decides.
 */
function mayBeRace(error: unknown): boolean {
  // Local storage: ENOENT for the temporary file it cannot make, or move into place, in a folder gone.
  return error instanceof RemoteFailure || error instanceof NotFoundError || (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}

/** Whether `path` is not there (a look-up that fails itself says nothing: the original failure stands). */
async function gone(storage: FileStorage, path: string): Promise<boolean> {
  return (await storage.stat(path).catch(() => undefined)) === null;
}

/** Whether `path` is `folder` or under it. */
const within = (path: string, folder: string) => folder === '' || path === folder || path.startsWith(`${folder}/`);

/** `storage` with the refusals a concurrent folder delete or write causes answered as 409s. */
export function raceAware(storage: FileStorage): FileStorage {
  /** Writes and folder deletes under way, each noting whether one of the other kind met it (in this process). */
  const writing = new Set<{ path: string; met: boolean }>();
  const deleting = new Set<{ folder: string; met: boolean }>();
  const tracked = async (path: string, work: () => Promise<void>): Promise<void> => {
    const write = { path, met: false };
    for (const removal of deleting)
      if (within(path, removal.folder)) {
        removal.met = true;
        write.met = true;
      }
    writing.add(write);
    try {
      await work();
    } catch (error) {
      // Its folder deleted meanwhile: here (rclone refuses such a write with a 403 while the delete
      // runs) or by another process (the folder is gone).
      const folder = parentOf(path);
      if (folder !== '' && mayBeRace(error) && (write.met || (await gone(storage, folder))))
        throw new ConflictError(`Folder '${shown(folder, true)}' was deleted while '${path}' was written into it.`);
      throw error;
    } finally {
      writing.delete(write);
    }
  };
  return {
    stat: (path) => storage.stat(path),
    list: (folder) => storage.list(folder),
    read: (path, range) => storage.read(path, range),
    removeFile: (path) => storage.removeFile(path),
    close: () => storage.close(),
    write: (path, content, options) => tracked(path, () => storage.write(path, content, options)),
    // Creates missing parents: a folder deleted meanwhile is made again.
    mkdir: (path, options) => storage.mkdir(path, options),
    copyFile: (from, to, options) => tracked(to, () => storage.copyFile(from, to, options)),
    async removeFolder(path, recursive) {
      const removal = { folder: path, met: false };
      for (const write of writing)
        if (within(write.path, path)) {
          write.met = true;
          removal.met = true;
        }
      deleting.add(removal);
      try {
        await storage.removeFolder(path, recursive);
      } catch (error) {
        // The back-end's failure while a write went into the folder: it was no longer empty, or its listing no longer true.
        if (removal.met && error instanceof RemoteFailure && error.status === 502)
          throw new ConflictError(`Folder '${shown(path, true)}' was written into while it was deleted: it holds what was written since.`);
        throw error;
      } finally {
        deleting.delete(removal);
      }
    },
  };
}
