/**
 * A preload (`node --import`) for table-bench.ts --allocations: SIGUSR2 starts V8's sampling heap
 * profiler (every HEAP_SAMPLER_INTERVAL bytes, keeping the samples of objects that minor and major
 * collections freed, so that the sum is what was allocated, not what survived); the next SIGUSR2
 * stops it and writes the profile to HEAP_SAMPLER_DIR/<pid>-<n>.heapprofile, then SIGUSR2 again
 * starts a new one. The file appearing tells the harness it is written.
 */
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';

const dir = process.env.HEAP_SAMPLER_DIR;
const interval = Number(process.env.HEAP_SAMPLER_INTERVAL ?? 128);
if (dir) {
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  let sampling = false;
  let n = 0;
  process.on('SIGUSR2', async () => {
    if (!sampling) {
      sampling = true;
      await post('HeapProfiler.enable');
      await post('HeapProfiler.startSampling', {
        samplingInterval: interval,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      fs.writeFileSync(path.join(dir, `${process.pid}-${n}.started`), '');
      return;
    }
    sampling = false;
    const { profile } = await post('HeapProfiler.stopSampling');
    const file = path.join(dir, `${process.pid}-${n++}.heapprofile`);
    fs.writeFileSync(`${file}.part`, JSON.stringify(profile));
    fs.renameSync(`${file}.part`, file);
  });
}
