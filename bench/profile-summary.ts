/**
 * Where a request's time goes, from a V8 CPU profile (`node --cpu-prof`) of the server: each
 * sample is charged to the innermost frame on its stack that belongs to a stage of Portico or its
 * libraries, so a native or Node-internal call (JSON.stringify, a socket write) counts for the
 * code that made it; what no such frame calls (reading sockets, the HTTP parser, timers) is
 * Node's own. Frames in the bundled runtime (dist/runtime-bundle/) are charged to the module the
 * bundler copied their line from, as if the runtime were loaded file by file.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Stages in the order a request meets them; the first matching rule names a frame's stage. */
const RULES: Array<[string, RegExp]> = [
  // Writes to a socket, the HTTP response's or the database connection's.
  ['socket I/O', /^node:(_http_outgoing|net)$|^node:internal\/(streams\/writable|stream_base_commons)$/],
  ['identify', /runtime\/(http\/identify|auth\/|system\/sessions)|fast-jwt/],
  ['access', /runtime\/(auth\/access|services\/sql\/table\/table-access)|row-filter/],
  [
    'plan',
    /runtime\/services\/sql\/(query\/(table-plan|conditions|record-reader|record-writer|value-codec|batch-runner)|filter\/|table\/)|kysely/,
  ],
  ['driver', /runtime\/services\/sql\/(dialects\/|query\/run-compiled)|node_modules\/(pg|pg-protocol|pg-pool|pg-types|better-sqlite3)\//],
  ['serialise', /fast-json-stringify|fastify\/lib\/(reply|error-serializer)|runtime\/openapi\/record-schemas/],
  [
    'parse',
    /runtime\/(http\/(body-parsing|api-dispatch|cors-hook)|core\/query-params)|fastify\/lib\/(content-type-parser|contentTypeParser|request)|find-my-way|fast-querystring|secure-json-parse/,
  ],
  ['other Portico', /\/runtime\//],
  ['Fastify', /node_modules\/(fastify|avvio|light-my-request|@fastify)\//],
];
const SPECIAL = new Map([
  ['(garbage collector)', 'GC'],
  ['(program)', 'V8/native'],
  ['(idle)', 'idle'],
]);

// esbuild starts each module's code in a bundle with a comment naming its path: `// node_modules/pg/lib/client.js`.
const MODULE_MARKER = /^\/\/ ((?:dist\/|node_modules\/)\S+)$/;
const bundleModules = new Map<string, Array<[number, string]>>();

/** The path of the module a frame's code came from: the bundled module's own path for bundle chunks. */
function sourceOf(url: string, line: number): string {
  if (!url.includes('/runtime-bundle/')) return url;
  let markers = bundleModules.get(url);
  if (markers === undefined) {
    markers = [];
    const lines = fs.readFileSync(fileURLToPath(url), 'utf8').split('\n');
    lines.forEach((text, index) => {
      const marker = MODULE_MARKER.exec(text);
      if (marker) markers!.push([index, marker[1]]);
    });
    bundleModules.set(url, markers);
  }
  let found = url;
  for (const [index, path] of markers) {
    if (index > line) break;
    found = path;
  }
  return found;
}

export interface Breakdown {
  stage: string;
  ms: number;
}

/** CPU time per stage over the last `windowMs` of the profile (the load run; start-up is left out). */
export function summariseProfile(file: string, windowMs: number): Breakdown[] {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stageOf = new Map<number, string>();
  const stage = (id: number): string => {
    let known = stageOf.get(id);
    if (known !== undefined) return known;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const source = sourceOf(url, lineNumber);
    known = SPECIAL.get(functionName) ?? RULES.find(([, pattern]) => pattern.test(source))?.[0];
    if (known === undefined) {
      const up = parent.get(id);
      known = up === undefined ? 'node http/net' : stage(up);
    }
    stageOf.set(id, known);
    return known;
  };
  const times: number[] = [];
  let now = 0;
  for (const delta of profile.timeDeltas) {
    now += delta;
    times.push(now);
  }
  const from = now - windowMs * 1000;
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    if (times[i] < from) return;
    const name = stage(id);
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
  });
  return [...totals]
    .map(([name, ms]) => ({ stage: name, ms }))
    .filter((b) => b.stage !== 'idle')
    .sort((a, b) => b.ms - a.ms);
}
