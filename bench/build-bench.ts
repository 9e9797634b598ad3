/**
 * `npm run bench:build`: how long `gen build` and `gen check` take as a user runs them (the `gen`
 * command in a fresh process, cold) on a large platform: a PostgreSQL database of 200 tables with
 * 174 foreign keys, plus the two largest WSDLs of ../shared/wsdl-corpus (197 and 177 operations).
 * Prints wall times of several runs and, from one in-process build, the time of each stage.
 * Needs the local PostgreSQL (PORTICO_TEST_POSTGRES_URL to point elsewhere) and the shared folder.
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

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    tables: { type: 'string', default: '200' },
    keep: { type: 'boolean', default: false },
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

function timeCommand(args: string[], cwd: string, env: NodeJS.ProcessEnv): { ms: number; status: number | null } {
  const [command, prefix] = genCommand();
  const start = performance.now();
  const result = spawnSync(command, [...prefix, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - start;
  if (result.status !== 0 && args[0] === 'build') throw new Error(`gen ${args.join(' ')} failed: ${result.stderr.toString()}`);
  return { ms, status: result.status };
}

const stats = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return `median ${(sorted[Math.floor(sorted.length / 2)] / 1000).toFixed(2)} s (min ${(sorted[0] / 1000).toFixed(2)}, max ${(sorted[sorted.length - 1] / 1000).toFixed(2)})`;
};

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
  } finally {
    if (values.keep) console.log(`kept ${dir} (BENCH_DATABASE_URL=${database.url})`);
    else {
      fs.rmSync(dir, { recursive: true, force: true });
      await database.drop();
    }
  }
}

await main();
