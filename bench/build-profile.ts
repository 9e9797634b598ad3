/**
 * Where a `gen` command's time goes, from a V8 CPU profile (`node --cpu-prof`) of the CLI: each
 * sample is charged to the pipeline stage on its stack (emit split by file kind: the createXFile
 * function), else to module loading when Node's module loader is on the stack, else to
 * introspection when it runs database-driver, SQL, WSDL or XML code (introspection continues in
 * callbacks with no stage frame above them). GC and idle (waiting for a database or the disk) are
 * V8's own entries.
 */
import fs from 'node:fs';
import type { Profile, ProfileNode } from './profile-summary.js';

export interface StageShare {
  stage: string;
  ms: number;
}

/** Pipeline functions (in generator/) by stage; the first one found walking up from a sample names it. */
const STAGE_FUNCTIONS: Array<[string, RegExp]> = [
  ['emit', /^(create\w+File|formatPrisma|compileHookModule)$/],
  ['emit (other)', /^emitPlatform$/],
  ['load', /^loadConfig$/],
  ['model', /^(buildModel|checkModel)$/],
  ['write', /^(writeFiles|verifyFiles)$/],
];
const INTROSPECTION =
  /\/runtime\/services\/(sql|soap)\/|node_modules\/(pg|pg-protocol|pg-pool|pg-types|kysely|mysql2|better-sqlite3|@xmldom)\//;
const SPECIAL = new Map([
  ['(garbage collector)', 'GC'],
  ['(idle)', 'idle'],
  ['(program)', 'V8/native'],
]);

function stageOf(chain: ProfileNode['callFrame'][]): string {
  const special = SPECIAL.get(chain[0].functionName);
  if (special !== undefined) return special;
  for (const frame of chain) {
    if (!frame.url.includes('/generator/')) continue;
    const stage = STAGE_FUNCTIONS.find(([, pattern]) => pattern.test(frame.functionName))?.[0];
    if (stage === 'emit') return `emit: ${frame.functionName}`;
    if (stage !== undefined) return stage;
  }
  if (chain.some((frame) => frame.url.startsWith('node:internal/modules/'))) return 'module loading';
  if (chain.some((frame) => INTROSPECTION.test(frame.url))) return 'introspect';
  return 'other';
}

/** Milliseconds per stage over the whole profile, largest first. */
export function summariseBuildProfile(file: string): StageShare[] {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const chain: ProfileNode['callFrame'][] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) chain.push(byId.get(at)!.callFrame);
    const stage = stageOf(chain);
    totals.set(stage, (totals.get(stage) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
  });
  return [...totals].map(([stage, ms]) => ({ stage, ms })).sort((a, b) => b.ms - a.ms);
}
