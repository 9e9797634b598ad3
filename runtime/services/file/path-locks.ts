/**
 * Work on one path of a file service, one request after the other within this process: a
 * create-only write (`check_exist`) or a folder creation looks for what is there and then writes,
 * and two such requests at once both found nothing and both succeeded (the second write replacing
 * the first one's file, which its caller had been told was created). Across processes over one
 * storage the drivers' exclusive create decides (file-storage.ts, CreateOptions); this lock keeps
 * the requests of one process from uploading in vain, and is all there is for FTP files.
 */
export class PathLocks {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(path: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(path) ?? Promise.resolve();
    let release = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = before.then(() => mine);
    this.tails.set(path, tail);
    try {
      await before;
      return await work();
    } finally {
      release();
      if (this.tails.get(path) === tail) this.tails.delete(path);
    }
  }
}
