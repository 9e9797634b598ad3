/**
 * `npm run bench:build`: how long `gen build` and `gen check` take as a user runs them (the `gen`
 * command in a fresh process, cold) on a large platform: a PostgreSQL database of 200 tables with
 * 174 foreign keys, plus the two largest WSDLs of ../shared/wsdl-corpus (197 and 177 operations).
 * Prints wall times of several runs and, from one in-process build, the time of each stage.
 * `--profile` (with the package built) then runs `gen build` and `gen check` once more under
 * `node --cpu-prof` and prints their CPU time by stage (build-profile.ts); `--profile-dir` keeps
 * the .cpuprofile files. Needs the local PostgreSQL (PORTICO_TEST_POSTGRES_URL to point elsewhere)
 * and the shared folder.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildPlatform, type StageTiming } from '#generator/pipeline.js';
import { createTestDatabase } from '#test/helpers/require-service.js';
import { WSDL_CORPUS_DIR } from '#test/helpers/shared-dir.js';
import { summariseBuildProfile } from './build-profile.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    tables: { type: 'string', default: '200' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'profile-dir': { type: 'string' },
  },
});
const runs = Number(values.runs);
const tableCount = Number(values.tables);
const repo = path.resolve(import.meta.dirname, '..');
const WSDLS = ['w2p-omniture.wsdl', 'savon-edialog.wsdl'];

/** 200 tables of 8 columns; every table after the 26th references up to two earlier ones (174 keys for 200 tables). */
function schemaSql(count: number): string {
  const statements: string[] = [];
  let keys = 0;
  for (let i = 1; i <= count; i++) {
    const refs: string[] = [];
    if (i > 26 && keys < 174) {
      refs.push(`parent_id integer references t${String(i - 26).padStart(3, '0')}(id)`);
      keys++;
    }
    statements.push(`create table t${String(i).padStart(3, '0')} (id serial primary key, code varchar(20) not null unique, name text not null,
      amount numeric(12,2), created timestamptz not null default now(), active boolean not null default true, notes text, rank smallint${refs.length > 0 ? `, ${refs.join(', ')}` : ''})`);
  }
  return `${statements.join(';\n')};`;
}

function platformYaml(): string {
  return [
    'platform:',
    '  name: big',
    'services:',
    '  - name: erp',
    '    type: pgsql',
    '    config:',
    '      url: ${env:BENCH_DATABASE_URL}',
    ...WSDLS.map((file, index) => `  - name: soap${index + 1}\n    type: soap\n    config:\n      wsdl: ${file}`),
    '',
  ].join('\n');
}

/** The gen command as a user runs it: the compiled CLI when the package is built, else through tsx. */
function genCommand(): [string, string[]] {
  const compiled = path.join(repo, 'dist', 'bin', 'gen.js');
  if (fs.existsSync(compiled)) return [process.execPath, [compiled]];
  return [path.join(repo, 'node_modules', '.bin', 'tsx'), [path.join(repo, 'bin', 'gen.ts')]];
}

function timeCommand(args: string[], cwd: string, env: NodeJS.ProcessEnv, nodeFlags: string[] = []): { ms: number; status: number | null } {
  const [command, prefix] = genCommand();
  if (nodeFlags.length > 0 && command !== process.execPath) throw new Error('--profile needs the compiled CLI: run `npm run build` first.');
  const start = performance.now();
  const result = spawnSync(command, [...nodeFlags, ...prefix, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - start;
  if (result.status !== 0 && args[0] === 'build') throw new Error(`gen ${args.join(' ')} failed: ${result.stderr.toString()}`);
  return { ms, status: result.status };
}

const stats = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return `median ${(sorted[Math.floor(sorted.length / 2)] / 1000).toFixed(2)} s (min ${(sorted[0] / 1000).toFixed(2)}, max ${(sorted[sorted.length - 1] / 1000).toFixed(2)})`;
};

/** `gen build` (empty output) and `gen check` once each under the CPU profiler: CPU time by stage. */
function profileCommands(dir: string, env: NodeJS.ProcessEnv): void {
  const profiles = values['profile-dir'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'portico-build-profile-'));
  for (const command of ['build', 'check']) {
    const out = path.join(profiles, command);
    if (command === 'build') fs.rmSync(path.join(dir, 'server'), { recursive: true, force: true });
    const { ms } = timeCommand([command, 'platform.yaml'], dir, env, ['--cpu-prof', `--cpu-prof-dir=${out}`]);
    const file = path.join(out, fs.readdirSync(out)[0]);
    const shares = summariseBuildProfile(file);
    const busy = shares.filter(({ stage }) => stage !== 'idle').reduce((sum, { ms: stageMs }) => sum + stageMs, 0);
    console.log(
      `gen ${command} profiled: ${(ms / 1000).toFixed(2)} s wall, ${Math.round(busy)} ms busy: ${shares.map(({ stage, ms: stageMs }) => `${stage} ${Math.round(stageMs)}`).join(', ')}`,
    );
  }
  if (values['profile-dir'] === undefined) fs.rmSync(profiles, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const database = await createTestDatabase('postgres');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-build-bench-'));
  try {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(schemaSql(tableCount));
    await client.end();
    for (const file of WSDLS) fs.copyFileSync(path.join(WSDL_CORPUS_DIR, file), path.join(dir, file));
    fs.writeFileSync(path.join(dir, 'platform.yaml'), platformYaml());
    const env = { ...process.env, BENCH_DATABASE_URL: database.url };
    console.log(
      `platform: ${tableCount} tables on PostgreSQL, SOAP ${WSDLS.join(' + ')}; ${os.cpus().length} cores; gen = ${genCommand().join(' ')}`,
    );

    const builds: number[] = [];
    const checks: number[] = [];
    for (let run = 0; run < runs; run++) {
      fs.rmSync(path.join(dir, 'server'), { recursive: true, force: true });
      builds.push(timeCommand(['build', 'platform.yaml'], dir, env).ms);
      checks.push(timeCommand(['check', 'platform.yaml'], dir, env).ms);
    }
    console.log(`gen build (cold, empty output): ${stats(builds)}`);
    console.log(`gen check (no drift):           ${stats(checks)}`);

    fs.rmSync(path.join(dir, 'server'), { recursive: true, force: true });
    const stages: StageTiming[] = [];
    const start = performance.now();
    await buildPlatform({ configPath: 'platform.yaml', cwd: dir, env, onStage: (timing) => stages.push(timing) });
    console.log(
      `in-process build ${Math.round(performance.now() - start)} ms: ${stages.map(({ stage, ms }) => `${stage} ${ms} ms`).join(', ')}`,
    );
    const files = execFileSync('find', [path.join(dir, 'server'), '-type', 'f'])
      .toString()
      .trim()
      .split('\n').length;
    console.log(`output: ${files} files`);
    if (values.profile) profileCommands(dir, env);
  } finally {
    if (values.keep) console.log(`kept ${dir} (BENCH_DATABASE_URL=${database.url})`);
    else {
      fs.rmSync(dir, { recursive: true, force: true });
      await database.drop();
    }
  }
}

await main();
