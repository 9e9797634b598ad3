/**
 * Benchmark: Portico's generated server against a hand-written Fastify server doing the same work
 * (hand-written-server.ts on SQLite, hand-written-pg-server.ts on PostgreSQL), on 100,000 orders
 * of 10,000 customers, for list (filter + limit 100), get by id, insert and patch; then memory
 * and cold start. See README.md beside this file.
 *
 *   npm run bench -- [--database sqlite|postgres|both] [--duration 5] [--rounds 5] [--connections 32]
 *                    [--only list,get,insert,patch,start] [--hooks none|noop|pre] [--against hand|plain]
 *                    [--profile [--profile-dir DIR]] [--instructions [--requests 1000] [--parallel 1] [--warm-up 3000]]
 *                    [--allocations [--requests 1000] [--parallel 1] [--sample-bytes 128]]
 *
 * --hooks noop: Portico's platform gets one hook module with a no-op pre_process and post_process
 * hook on the event of every request the bench sends (platform.yaml `hooks`), to measure what a
 * hook per operation costs: compare the ratios with those of a run without it (or use --against
 * plain). `--hooks pre` gives pre_process hooks only. (The module does not ask for
 * `transaction: true`: its writes run as they would without hooks.)
 *
 * --against plain (with --hooks noop or pre): the second server is Portico too, the same platform
 * without the hook module, on a copy of the same data and credentials, so that the ratio per round
 * is the hooks' cost alone (the machine's drift between rounds cancels out). With --hooks none it
 * compares two identical servers: the spread of its ratios is the benchmark's own noise.
 *
 * --profile: instead of the comparison, runs Portico alone under `node --cpu-prof` for each
 * request and prints where a request's CPU time goes (profile-summary.ts); --profile-dir keeps the
 * .cpuprofile files (one folder per request) for Chrome DevTools.
 *
 * --instructions: instead of the comparison, runs each server under valgrind's callgrind and sends
 * it the same requests one after the other (one keep-alive connection, the same ids for both), then
 * prints the instructions per request of each (callgrind.ts): a figure the machine's other load
 * does not move, for comparing builds (run it in two worktrees) or Portico with the hand-written
 * server. --requests is the batch per request kind and round (1000). --parallel N keeps N requests
 * under way at once (each on a connection of its own), as a load run does: what a request costs
 * when others wait beside it (the young collections copy what they hold). Under callgrind node runs
 * with V8's predictable GC schedule, whose young generation has a fixed size: the growing and
 * shrinking of a load run (runtime/http/idle-memory.ts) is not in these counts.
 * --warm-up N: requests of each kind sent before counting (3000). After 3000 gets V8 still compiles
 * part of Portico's path during the counted batches (and runs it unoptimised meanwhile); 12000,
 * with PORTICO_LOG_LEVEL=silent, gave rounds within 0.3k of each other (bench/README.md,
 * nineteenth session h1): the setting for A/B pairs of small changes.
 *
 * --allocations: instead of the comparison, runs each server with V8's sampling heap profiler
 * (heap-sampler.mjs, a sample every --sample-bytes, the samples of collected objects kept) over
 * the same batches as --instructions, and prints the bytes allocated per request with the
 * functions that allocate most (a sampled estimate: compare medians of rounds). BENCH_TOP_SITES
 * (25) sets how many functions; BENCH_KEEP_HEAP_PROFILES=DIR keeps each round's .heapprofile there
 * (Chrome DevTools reads them; their stacks show who called an allocating function).
 *
 * Each pair of measured runs (one request kind, both servers) follows a one-second warm-up of
 * each server with that request, not counted: where the two servers' runs simply alternated, a
 * server waited through two runs of the other at each round's turn (11 s, more on a slow
 * machine) and started its run with what the pause did to it (node-postgres closed its idle
 * connections after 10 s; Portico gives memory back after 12 s idle, runtime/http/idle-memory.ts),
 * which swung single rounds' ratios from 0.5 to 1.2. Now no server is idle for more than about one
 * run. Load runs print, per request kind, each round's ratio and CPU with how long each server had
 * been idle before its run and how many database connections it had open when the run began.
 *
 * PostgreSQL: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test) names a
 * database on the server where the benchmark may create and drop its own databases.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { buildPlatform } from '#generator/pipeline.js';
import { CUSTOMERS, createPostgresData, createSqliteData, ORDERS } from './bench-data.js';
import { median } from './closed-loops.js';
import { SCENARIOS, startLoad, type Scenario } from './load.js';
import { dumpCounts, startCounting, underCallgrind, zeroCounts, type Counts } from './callgrind.js';
import { summariseProfile } from './profile-summary.js';
import { cpuSeconds, listeningProcess, machineCpu, ownCpuSeconds, rssMb } from './proc-stats.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: 'both' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    only: { type: 'string', default: 'list,get,insert,patch,start' },
    hooks: { type: 'string', default: 'none' },
    against: { type: 'string', default: 'hand' },
    profile: { type: 'boolean', default: false },
    'profile-dir': { type: 'string' },
    instructions: { type: 'boolean', default: false },
    requests: { type: 'string', default: '1000' },
    parallel: { type: 'string', default: '1' },
    allocations: { type: 'boolean', default: false },
    'sample-bytes': { type: 'string', default: '128' },
    'warm-up': { type: 'string', default: '3000' },
  },
});
const seconds = Number(args.duration);
const rounds = Number(args.rounds);
/** --instructions: requests under way at once (1: one after the other on one connection). */
const parallel = Number(args.parallel);
const connections = Number(args.connections);
const only = new Set(args.only.split(','));
const scenarios = SCENARIOS.filter((s) => only.has(s.name));
if (!['none', 'noop', 'pre'].includes(args.hooks)) throw new Error(`Unknown --hooks '${args.hooks}': use none, noop or pre.`);
if (!['hand', 'plain'].includes(args.against)) throw new Error(`Unknown --against '${args.against}': use hand or plain.`);
/** Whether the second server is Portico without hooks instead of the hand-written one. */
const againstPlain = args.against === 'plain';
const second = againstPlain ? 'plain' : 'hand';
const secondLetter = againstPlain ? 'N' : 'H';

/**
 * The hook module of `--hooks noop`: a pre_process and a post_process hook doing nothing (an
 * async function each, as a real hook that awaits something is) on the events of the requests the
 * bench sends (list and insert on `_table/orders`, get and patch on `_table/orders/{id}`).
 */
const noopHooks = (phases: string[]) =>
  [
    `// A no-op hook (${phases.join(', ')}) on every operation the bench runs (bench/table-bench.ts --hooks).`,
    "const events = ['db._table.orders.get', 'db._table.orders.post', 'db._table.orders.{id}.get', 'db._table.orders.{id}.patch'];",
    `const phases = ${JSON.stringify(phases)};`,
    'const noop = async () => undefined;',
    'export default Object.fromEntries(events.flatMap((event) => phases.map((phase) => [`${event}.${phase}`, noop])));',
    '',
  ].join('\n');
const PASSWORD = 'bench-password-0123456789';
const ADMIN = 'bench@portico.local';
const START_RUNS = 5;
/** How long after a load the settled idle RSS is read: Portico gives memory back once idle for 12 s (runtime/http/idle-memory.ts). */
const SETTLE_MS = 15_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * BENCH_PORTS=first-last (e.g. 19100-19199): the servers listen on a free port of that range, for
 * a machine whose users share out port ranges; otherwise on any port the system gives.
 */
const portRange = process.env.BENCH_PORTS?.split('-').map(Number);
let nextPort = portRange?.[0] ?? 0;

function listenOn(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

async function freePort(): Promise<number> {
  if (portRange === undefined) return (await listenOn(0))!;
  const [first, last] = portRange;
  for (let tries = 0; tries <= last - first; tries++) {
    const port = nextPort;
    nextPort = nextPort >= last ? first : nextPort + 1;
    if ((await listenOn(port)) !== undefined) return port;
  }
  throw new Error(`No free port in BENCH_PORTS ${first}-${last}`);
}

interface Server {
  child: ChildProcess;
  pid: number;
  url: string;
  output: string;
  stop(): Promise<void>;
}
interface Launch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

const running = new Set<ChildProcess>();
const OUTPUT_KEPT = 64 * 1024;
process.once('exit', () => {
  for (const child of running) child.kill();
});

/** Starts a server and resolves once it listens; `pid` is the listening process (under a launcher such as npx). */
async function start(launch: Launch, ready?: (url: string) => Promise<boolean>): Promise<Server & { startSeconds: number }> {
  const port = await freePort();
  const began = process.hrtime.bigint();
  const child = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: { ...process.env, ...launch.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  running.add(child);
  let output = '';
  // Keep the tail only: the server logs a line per request, megabytes in a load run.
  child.stdout!.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
    running.delete(child);
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (exited) throw new Error(`${launch.command} ${launch.args.join(' ')} exited:\n${output}`);
    const pid = listeningProcess(child.pid!, port);
    if (pid !== undefined && (ready === undefined || (await ready(url)))) {
      const startSeconds = Number(process.hrtime.bigint() - began) / 1e9;
      return {
        child,
        pid,
        url,
        startSeconds,
        get output() {
          return output;
        },
        async stop() {
          if (exited) return;
          const gone = new Promise((resolve) => child.once('exit', resolve));
          process.kill(-child.pid!, 'SIGTERM'); // the launcher's whole process group
          await gone;
        },
      };
    }
    await sleep(5);
  }
}

/** The command the generated server's README gives under "## Run" (run from the server directory). */
function readmeLaunch(serverDir: string, env: Record<string, string>): Launch {
  const readme = fs.readFileSync(path.join(serverDir, 'README.md'), 'utf8');
  const command = /## Run[\s\S]*?```sh\n([^\n]+)\n```/.exec(readme)?.[1];
  if (!command) throw new Error(`No run command in ${serverDir}/README.md`);
  const [first, ...rest] = command.trim().split(/\s+/);
  return { command: first, args: rest, cwd: serverDir, env };
}

const handLaunch = (script: string, env: Record<string, string>): Launch => ({
  command: process.execPath,
  args: ['--import', 'tsx', path.join(root, 'bench', script)],
  cwd: root,
  env,
});

interface Contestant {
  /** The slot: Portico, and what it is compared with (the hand-written server, or Portico without hooks). */
  name: 'portico' | 'hand';
  launch: Launch;
  server?: Server;
  database: string | null;
}
interface Setup {
  label: string;
  contestants: [Contestant, Contestant];
  headers: Record<string, string>;
  /** The probe a cold start waits for: an authenticated GET of one order. */
  probe(url: string): Promise<boolean>;
  /** CPU seconds the database's own processes have used for `database` so far (PostgreSQL backends), per pid. */
  databaseCpu(database: string | null): Promise<Map<number, number>>;
  cleanup(): Promise<void>;
}

/** Stops a contestant's server and forgets it, so the next one is measured alone and teardown skips it. */
async function stopServer(contestant: Contestant): Promise<void> {
  await contestant.server?.stop();
  contestant.server = undefined;
}

/** After a mode, also when it failed part-way: any server still running, the setup's databases, the mode's temp dir. */
async function tearDown(setup: Setup, dir: string): Promise<void> {
  for (const contestant of setup.contestants) await stopServer(contestant);
  await setup.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * A fresh directory for a platform inside the repo (so `portico/runtime` resolves by
 * self-reference), named after this process so that runs at the same time do not collide.
 */
function workDir(name: string): string {
  const dir = path.join(root, `${name}-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  return dir;
}

/** Builds the platform in `work`, starts it once to create the administrator and logs in. */
async function preparePortico(
  work: string,
  service: string[],
): Promise<{ launch: Launch; headers: Record<string, string>; jwtSecret: string }> {
  writePlatform(work, service, args.hooks);
  await buildPlatform({ configPath: 'platform.yaml', cwd: work });
  const launch = readmeLaunch(path.join(work, 'server'), {});
  const first = await start({ ...launch, env: { PORTICO_ADMIN_EMAIL: ADMIN, PORTICO_ADMIN_PASSWORD: PASSWORD } });
  try {
    // The server prints its key just after it starts listening.
    while (!/admin app API key: [0-9a-f]{64}/.test(first.output)) await sleep(10);
    const apiKey = /admin app API key: ([0-9a-f]{64})/.exec(first.output)![1];
    const login = await fetch(`${first.url}/api/v2/system/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey },
      body: JSON.stringify({ email: ADMIN, password: PASSWORD, duration: 24 * 60 }),
    });
    const { session_token: token } = (await login.json()) as { session_token: string };
    const headers = { 'content-type': 'application/json', 'x-service-api-key': apiKey, 'x-service-session-token': token };
    const systemDb = new Database(path.join(work, 'data/system.sqlite'), { readonly: true });
    const jwtSecret = (systemDb.prepare(`SELECT value FROM system_setting WHERE name = 'jwt_secret'`).get() as { value: string }).value;
    systemDb.close();
    return { launch, headers, jwtSecret };
  } finally {
    await first.stop();
  }
}

function writePlatform(work: string, service: string[], hooks: string): void {
  fs.writeFileSync(
    path.join(work, 'platform.yaml'),
    [
      'platform:',
      '  name: bench',
      '  title: Benchmark platform',
      'services:',
      '  - name: db',
      ...service.map((line) => `    ${line}`),
      ...(hooks === 'none' ? [] : ['hooks:', '  - file: hooks/noop.ts']),
      'system:',
      '  database: data/system.sqlite',
      '',
    ].join('\n'),
  );
  if (hooks !== 'none') {
    fs.mkdirSync(path.join(work, 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(work, 'hooks/noop.ts'), noopHooks(hooks === 'pre' ? ['pre_process'] : ['pre_process', 'post_process']));
  }
}

/**
 * `--against plain`: the same platform without hooks in `plain`, with a copy of `work`'s system
 * database (the same administrator, API key and JWT secret, so one set of headers serves both).
 */
async function preparePlain(work: string, plain: string, service: string[]): Promise<Launch> {
  writePlatform(plain, service, 'none');
  await buildPlatform({ configPath: 'platform.yaml', cwd: plain });
  fs.copyFileSync(path.join(work, 'data/system.sqlite'), path.join(plain, 'data/system.sqlite'));
  return readmeLaunch(path.join(plain, 'server'), {});
}

const probeWith = (headers: Record<string, string>) => async (url: string) => {
  try {
    const response = await fetch(`${url}/api/v2/db/_table/orders/1`, { headers });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
};

async function sqliteSetup(): Promise<Setup> {
  const work = workDir('.bench-tmp');
  const plain = workDir('.bench-tmp-plain');
  const service = ['type: sqlite', 'config:', '  database: data/bench.sqlite'];
  const cleanup = async () => {
    for (const dir of [work, plain]) fs.rmSync(dir, { recursive: true, force: true });
  };
  let portico: Awaited<ReturnType<typeof preparePortico>>;
  let second: Launch;
  try {
    createSqliteData(path.join(work, 'data/bench.sqlite'));
    fs.copyFileSync(
      path.join(work, 'data/bench.sqlite'),
      path.join(againstPlain ? plain : work, againstPlain ? 'data/bench.sqlite' : 'hand.sqlite'),
    );
    portico = await preparePortico(work, service);
    second = againstPlain
      ? await preparePlain(work, plain, service)
      : handLaunch('hand-written-server.ts', {
          DATABASE: path.join(work, 'hand.sqlite'),
          API_KEY: portico.headers['x-service-api-key'],
          JWT_SECRET: portico.jwtSecret,
        });
  } catch (error) {
    await cleanup();
    throw error;
  }
  return {
    label: 'SQLite',
    contestants: [
      { name: 'portico', launch: portico.launch, database: null },
      { name: 'hand', launch: second, database: null },
    ],
    headers: portico.headers,
    probe: probeWith(portico.headers),
    databaseCpu: async () => new Map(),
    cleanup,
  };
}

async function postgresSetup(): Promise<Setup> {
  const admin = new URL(process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  const suffix = crypto.randomBytes(4).toString('hex');
  const names = { portico: `portico_bench_${suffix}`, hand: `hand_bench_${suffix}` };
  const urlOf = (name: string) => Object.assign(new URL(admin), { pathname: `/${name}` }).href;
  const client = new pg.Client({ connectionString: admin.href });
  await client.connect();
  const work = workDir('.bench-tmp-pg');
  const plain = workDir('.bench-tmp-pg-plain');
  const cleanup = async () => {
    for (const dir of [work, plain]) fs.rmSync(dir, { recursive: true, force: true });
    for (const name of Object.values(names)) await client.query(`drop database if exists "${name}" with (force)`);
    await client.end();
  };
  let portico: Awaited<ReturnType<typeof preparePortico>>;
  let second: Launch;
  try {
    await client.query(`create database "${names.portico}"`);
    await createPostgresData(urlOf(names.portico), names.portico);
    await client.query(`create database "${names.hand}" template "${names.portico}"`);
    await client.query(`alter database "${names.hand}" set synchronous_commit = off`);
    portico = await preparePortico(work, ['type: pgsql', 'config:', `  url: ${urlOf(names.portico)}`]);
    second = againstPlain
      ? await preparePlain(work, plain, ['type: pgsql', 'config:', `  url: ${urlOf(names.hand)}`])
      : handLaunch('hand-written-pg-server.ts', {
          DATABASE_URL: urlOf(names.hand),
          API_KEY: portico.headers['x-service-api-key'],
          JWT_SECRET: portico.jwtSecret,
        });
  } catch (error) {
    // A failed setup leaves no databases behind.
    await cleanup();
    throw error;
  }
  return {
    label: 'PostgreSQL',
    contestants: [
      { name: 'portico', launch: portico.launch, database: names.portico },
      { name: 'hand', launch: second, database: names.hand },
    ],
    headers: portico.headers,
    probe: probeWith(portico.headers),
    async databaseCpu(database) {
      const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database]);
      return new Map(rows.map(({ pid }) => [pid, cpuSeconds(pid)]));
    },
    cleanup,
  };
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  serverUs: number;
  databaseUs: number;
  otherCores: number;
  rssLoad: number;
  /** Seconds the server had been idle since its previous run or warm-up (NaN before the first). */
  idleBefore: number;
  /** The server's database connections open when the run began (PostgreSQL). */
  connectionsBefore: number;
}

/** When each server's last run ended (hrtime), for Run.idleBefore. */
const lastEnded = new Map<Contestant, bigint>();

/** The warm-up of both servers before each pair of measured runs (see the module note). */
const PAIR_WARM_UP_SECONDS = 1;

/** A load run not measured (a warm-up). */
async function warmUp(setup: Setup, contestant: Contestant, scenario: Scenario, seconds: number, dir: string): Promise<void> {
  await startLoad(contestant.server!.url, scenario, setup.headers, { connections, seconds, dir }).done;
  lastEnded.set(contestant, process.hrtime.bigint());
}

/**
 * One load run: wrk's figures, with the CPU the server and the database used meanwhile, and the
 * other load on the machine: its busy time less the server's, the database's and the harness's
 * own (this process and wrk), in cores.
 */
async function measure(setup: Setup, contestant: Contestant, scenario: Scenario, duration: number, dir: string): Promise<Run> {
  const server = contestant.server!;
  const began = process.hrtime.bigint();
  const ended = lastEnded.get(contestant);
  const idleBefore = ended === undefined ? Number.NaN : Number(began - ended) / 1e9;
  const machine0 = machineCpu().busy;
  const own0 = ownCpuSeconds();
  const server0 = cpuSeconds(server.pid);
  const database0 = await setup.databaseCpu(contestant.database);
  let rssLoad = 0;
  const sampler = setInterval(() => {
    rssLoad = Math.max(rssLoad, rssMb(server.pid));
  }, 250);
  const result = await startLoad(server.url, scenario, setup.headers, { connections, seconds: duration, dir }).done.finally(() =>
    clearInterval(sampler),
  );
  lastEnded.set(contestant, process.hrtime.bigint());
  const serverCpu = cpuSeconds(server.pid) - server0;
  let databaseCpu = 0;
  for (const [pid, cpu] of await setup.databaseCpu(contestant.database)) databaseCpu += cpu - (database0.get(pid) ?? 0);
  const otherCpu = machineCpu().busy - machine0 - serverCpu - databaseCpu - (ownCpuSeconds() - own0);
  const wall = Number(process.hrtime.bigint() - began) / 1e9;
  return {
    rps: result.rps,
    p50: result.p50Ms,
    p99: result.p99Ms,
    serverUs: (serverCpu / result.requests) * 1e6,
    databaseUs: (databaseCpu / result.requests) * 1e6,
    otherCores: Math.max(0, otherCpu / wall),
    rssLoad,
    idleBefore,
    connectionsBefore: database0.size,
  };
}

/** Portico alone under the CPU profiler, one fresh server per request: CPU per request by stage. */
async function profile(setup: Setup): Promise<void> {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'portico-profile-'));
  const keep = args['profile-dir'] === undefined ? undefined : path.resolve(args['profile-dir'], setup.label.toLowerCase());
  const portico = setup.contestants[0];
  const lines = [
    `${setup.label}: Portico under load for ${seconds}s after a warm-up: its CPU per request (from /proc), and the profile's samples by stage`,
    '(the profiler samples wall time: "socket I/O" also holds time the server waited to run again after waking the database on a busy machine)',
  ];
  try {
    for (const scenario of scenarios) {
      const profiles = path.join(keep ?? dir, scenario.name);
      fs.rmSync(profiles, { recursive: true, force: true });
      // --cpu-prof is refused in NODE_OPTIONS: node runs the README's entry file itself.
      const entry = portico.launch.args[portico.launch.args.length - 1];
      const launch = {
        ...portico.launch,
        command: process.execPath,
        args: [`--cpu-prof`, `--cpu-prof-dir=${profiles}`, ...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []), entry],
      };
      portico.server = await start(launch, setup.probe);
      await startLoad(portico.server.url, scenario, setup.headers, { connections, seconds: Math.min(2, seconds), dir }).done;
      const cpu0 = cpuSeconds(portico.server.pid);
      const run = await startLoad(portico.server.url, scenario, setup.headers, { connections, seconds, dir }).done;
      const cpuUs = ((cpuSeconds(portico.server.pid) - cpu0) / run.requests) * 1e6;
      const pid = portico.server.pid;
      await stopServer(portico);
      // Thread 0 is the main thread (a loader such as tsx runs its hooks in a thread of its own).
      const file = fs.readdirSync(profiles).find((name) => name.includes(`.${pid}.0.`));
      if (!file) throw new Error(`No profile of process ${pid} in ${profiles}`);
      const stages = summariseProfile(path.join(profiles, file), seconds * 1000);
      const total = stages.reduce((sum, s) => sum + s.ms, 0);
      lines.push(
        `${scenario.name}: ${run.rps.toFixed(0)} req/s, ${cpuUs.toFixed(0)} us CPU per request; ` +
          stages.map((s) => `${s.stage} ${((100 * s.ms) / total).toFixed(1)}%`).join(', '),
      );
    }
  } finally {
    await tearDown(setup, dir);
  }
  console.log(`${lines.join('\n')}\n`);
}

/**
 * Sends `count` requests of `scenario` with the ids the positions `from` onwards give (the same for
 * every server and build): one after the other on one keep-alive connection, or with `parallel`
 * requests under way at once (each on a connection of its own), as a load run has them; any answer
 * but 2xx stops the run.
 */
async function sendInOrder(
  url: string,
  scenario: Scenario,
  headers: Record<string, string>,
  from: number,
  count: number,
  parallel = 1,
): Promise<void> {
  let next = from;
  const sender = async () => {
    for (let i = next++; i < from + count; i = next++) await sendOne(url, scenario, headers, i);
  };
  await Promise.all(Array.from({ length: parallel }, sender));
}

async function sendOne(url: string, scenario: Scenario, headers: Record<string, string>, i: number): Promise<void> {
  const id = 1 + ((i * 7919) % ORDERS);
  const customer = 1 + ((i * 31) % CUSTOMERS);
  const response = await fetch(url + scenario.path.replace('{id}', String(id)), {
    method: scenario.method,
    headers,
    body: scenario.body?.replace('{customer}', String(customer)),
  });
  const text = await response.text();
  if (response.status >= 300)
    throw new Error(`${scenario.method} ${scenario.path} (id ${id}) answered ${response.status}: ${text.slice(0, 500)}`);
}

/** --instructions: requests of each kind before counting starts (--warm-up). */
const WARM_UP_REQUESTS = Number(args['warm-up']);

/** Each server under callgrind, the same requests in the same order: instructions per request (callgrind.ts). */
async function instructions(setup: Setup): Promise<void> {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'portico-callgrind-'));
  const batch = Number(args.requests);
  const counts = new Map<string, Map<string, Counts[]>>();
  try {
    for (const contestant of setup.contestants) {
      const { launch } = contestant;
      if (path.basename(launch.command) !== 'node' && launch.command !== process.execPath)
        throw new Error(`--instructions runs node under valgrind: ${launch.command} ${launch.args.join(' ')} is not a node command`);
      contestant.server = await start({ ...launch, ...underCallgrind(launch.args, dir) }, setup.probe);
      const { pid, url } = contestant.server;
      let sent = 0;
      for (const scenario of scenarios) {
        await sendInOrder(url, scenario, setup.headers, sent, WARM_UP_REQUESTS, parallel);
        sent += WARM_UP_REQUESTS;
      }
      startCounting(pid);
      const mine = new Map<string, Counts[]>(scenarios.map((s) => [s.name, []]));
      for (let round = 0; round < rounds; round++) {
        for (const scenario of scenarios) {
          zeroCounts(pid);
          await sendInOrder(url, scenario, setup.headers, sent, batch, parallel);
          sent += batch;
          mine.get(scenario.name)!.push(await dumpCounts(pid, dir));
        }
        process.stderr.write(`${setup.label} ${contestant.name}: round ${round + 1}/${rounds} done\n`);
      }
      counts.set(contestant.name, mine);
      await stopServer(contestant);
    }
  } finally {
    await tearDown(setup, dir);
  }
  const thousands = (n: number) => (n / batch / 1000).toFixed(1);
  const lines = [
    `${setup.label}: thousands of instructions per request under callgrind, ${rounds} rounds of ${batch} requests ${parallel === 1 ? 'one at a time' : `${parallel} at a time`} after ${WARM_UP_REQUESTS} of each; ` +
      'steady = all but GC, incremental marking, compilers, deoptimisation and timer callbacks (their inclusive counts); medians of rounds (min-max)',
  ];
  for (const scenario of scenarios) {
    const cells = setup.contestants.map(({ name }) => {
      const runs = counts.get(name)!.get(scenario.name)!;
      const steady = runs.map((c) => c.steady);
      return {
        name: name === 'hand' ? second : name,
        steady: median(steady),
        text: `steady ${thousands(median(steady))} (${thousands(Math.min(...steady))}-${thousands(Math.max(...steady))}), total ${thousands(median(runs.map((c) => c.total)))}, gc ${thousands(median(runs.map((c) => c.bursts.gc)))}, timers ${thousands(median(runs.map((c) => c.timers)))}`,
      };
    });
    lines.push(
      `${scenario.name}: ${cells.map((c) => `${c.name} ${c.text}`).join('; ')}; steady ratio ${(cells[0].steady / cells[1].steady).toFixed(2)}`,
    );
  }
  console.log(`${lines.join('\n')}\n`);
}

/** Bytes allocated by function (name file:line), from a sampling heap profile's tree. */
function bytesBySite(profile: HeapNode): Map<string, number> {
  const sites = new Map<string, number>();
  const walk = (node: HeapNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|runtime|bench)\//, '$1/')}:${lineNumber + 1}` : ''}`;
    sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile);
  return sites;
}
interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** Toggles a server's heap sampler (heap-sampler.mjs) and waits for its answer file. */
async function toggleSampler(pid: number, dir: string, file: string): Promise<string> {
  process.kill(pid, 'SIGUSR2');
  const target = path.join(dir, file);
  while (!fs.existsSync(target)) await sleep(5);
  return target;
}

/** Each server under the sampling heap profiler, the same requests in the same order: bytes allocated per request. */
async function allocations(setup: Setup): Promise<void> {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'portico-heap-'));
  const batch = Number(args.requests);
  const lines = [
    `${setup.label}: bytes allocated per request (sampled every ${args['sample-bytes']} bytes, collected objects included), ${rounds} rounds of ${batch} requests ${parallel === 1 ? 'one at a time' : `${parallel} at a time`} after ${WARM_UP_REQUESTS} of each; medians of rounds (min-max), then the top sites of the median round`,
  ];
  const sampler = path.join(root, 'bench/heap-sampler.mjs');
  try {
    for (const contestant of setup.contestants) {
      const env = {
        ...contestant.launch.env,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${sampler}`.trim(),
        HEAP_SAMPLER_DIR: dir,
        HEAP_SAMPLER_INTERVAL: args['sample-bytes'],
      };
      contestant.server = await start({ ...contestant.launch, env }, setup.probe);
      const { pid, url } = contestant.server;
      let sent = 0;
      for (const scenario of scenarios) {
        await sendInOrder(url, scenario, setup.headers, sent, WARM_UP_REQUESTS, parallel);
        sent += WARM_UP_REQUESTS;
      }
      let n = 0;
      for (const scenario of scenarios) {
        const runs: { bytes: number; sites: Map<string, number> }[] = [];
        for (let round = 0; round < rounds; round++) {
          await toggleSampler(pid, dir, `${pid}-${n}.started`);
          await sendInOrder(url, scenario, setup.headers, sent, batch, parallel);
          sent += batch;
          const file = await toggleSampler(pid, dir, `${pid}-${n++}.heapprofile`);
          if (process.env.BENCH_KEEP_HEAP_PROFILES)
            fs.copyFileSync(
              file,
              path.join(process.env.BENCH_KEEP_HEAP_PROFILES, `${scenario.name}-${contestant.name}-${round}.heapprofile`),
            );
          const sites = bytesBySite((JSON.parse(fs.readFileSync(file, 'utf8')) as { head: HeapNode }).head);
          runs.push({ bytes: [...sites.values()].reduce((a, b) => a + b, 0) / batch, sites });
        }
        const bytes = runs.map((r) => r.bytes);
        const middle = [...runs].sort((a, b) => a.bytes - b.bytes)[Math.floor(runs.length / 2)];
        const top = [...middle.sites].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.BENCH_TOP_SITES ?? 25));
        lines.push(
          `${scenario.name} ${contestant.name === 'hand' ? second : contestant.name}: ${median(bytes).toFixed(0)} bytes (${Math.min(...bytes).toFixed(0)}-${Math.max(...bytes).toFixed(0)})`,
          ...top.map(([site, b]) => `    ${(b / batch).toFixed(0).padStart(6)}  ${site}`),
        );
      }
      await stopServer(contestant);
    }
  } finally {
    await tearDown(setup, dir);
  }
  console.log(`${lines.join('\n')}\n`);
}

async function run(setup: Setup): Promise<void> {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'portico-bench-'));
  const lines: string[] = [];
  try {
    const memory = new Map<string, { idle: number; afterLoad: number; settled: number; load: number }>();
    if (scenarios.length > 0) {
      for (const contestant of setup.contestants) {
        contestant.server = await start(contestant.launch, setup.probe);
        await sleep(1000);
        memory.set(contestant.name, { idle: rssMb(contestant.server.pid), afterLoad: 0, settled: 0, load: 0 });
        // Warm-up (JIT, caches, pool): one short run of each request, not counted.
        for (const scenario of scenarios) await warmUp(setup, contestant, scenario, Math.min(2, seconds), dir);
      }
      const runs = new Map<string, { portico: Run[]; hand: Run[] }>(scenarios.map((s) => [s.name, { portico: [], hand: [] }]));
      for (let round = 0; round < rounds; round++) {
        // Rotated order: each round starts with another request and alternates which server goes first.
        const order = scenarios.map((_, i) => scenarios[(i + round) % scenarios.length]);
        for (const scenario of order) {
          const pair = round % 2 === 0 ? setup.contestants : [setup.contestants[1], setup.contestants[0]];
          for (const contestant of pair) await warmUp(setup, contestant, scenario, PAIR_WARM_UP_SECONDS, dir);
          for (const contestant of pair)
            runs.get(scenario.name)![contestant.name].push(await measure(setup, contestant, scenario, seconds, dir));
        }
        process.stderr.write(`${setup.label}: round ${round + 1}/${rounds} done\n`);
      }
      await sleep(2000);
      for (const contestant of setup.contestants) {
        const m = memory.get(contestant.name)!;
        m.afterLoad = rssMb(contestant.server!.pid);
        m.load = Math.max(...[...runs.values()].flatMap((r) => r[contestant.name].map((x) => x.rssLoad)));
      }
      await sleep(SETTLE_MS - 2000);
      for (const contestant of setup.contestants) {
        memory.get(contestant.name)!.settled = rssMb(contestant.server!.pid);
        await contestant.server!.stop();
      }
      const table = [
        [
          'request',
          'ratio',
          'rounds min-max',
          'portico req/s',
          'p50 ms',
          'p99 ms',
          `${second} req/s`,
          'p50 ms',
          'p99 ms',
          'p99 x',
          `server CPU us/req P/${secondLetter}`,
          `DB CPU us/req P/${secondLetter}`,
          'other load (cores)',
        ],
      ];
      for (const scenario of scenarios) {
        const { portico: p, hand: h } = runs.get(scenario.name)!;
        const m = (runsOf: Run[], key: keyof Run) => median(runsOf.map((r) => r[key]));
        const ratios = p.map((r, i) => r.rps / h[i].rps);
        const ratio = median(ratios);
        const others = [...p, ...h].map((r) => r.otherCores);
        table.push([
          scenario.name,
          ratio.toFixed(2),
          // How far single rounds strayed: the machine's noise, which the median rides out.
          `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`,
          m(p, 'rps').toFixed(0),
          m(p, 'p50').toFixed(2),
          m(p, 'p99').toFixed(2),
          m(h, 'rps').toFixed(0),
          m(h, 'p50').toFixed(2),
          m(h, 'p99').toFixed(2),
          (m(p, 'p99') / m(h, 'p99')).toFixed(2),
          `${m(p, 'serverUs').toFixed(0)} / ${m(h, 'serverUs').toFixed(0)}`,
          setup.contestants[0].database === null ? '-' : `${m(p, 'databaseUs').toFixed(0)} / ${m(h, 'databaseUs').toFixed(0)}`,
          `${median(others).toFixed(2)} (max ${Math.max(...others).toFixed(2)})`,
        ]);
      }
      const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
      lines.push(
        `${setup.label}: ${connections} connections, ${seconds}s x ${rounds} rounds, order rotated; ratio = median of per-round Portico/${second} req/s; other figures medians${args.hooks === 'none' ? '' : `; Portico with a no-op ${args.hooks === 'pre' ? 'pre_process' : 'pre_process and post_process'} hook per operation`}${againstPlain ? ', plain = the same platform without it' : ''}`,
      );
      for (const row of table) lines.push(row.map((cell, i) => cell.padEnd(widths[i])).join('  '));
      // Round by round: how long each server had been idle before its run, and how many database
      // connections it had open when the run began, beside the figures.
      const pg = setup.contestants[0].database !== null;
      for (const scenario of scenarios) {
        const { portico: p, hand: h } = runs.get(scenario.name)!;
        const rounds = p.map((r, i) => {
          const o = h[i];
          const idle = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(1));
          return (
            `${i + 1}: ${(r.rps / o.rps).toFixed(2)} cpu ${r.serverUs.toFixed(0)}/${o.serverUs.toFixed(0)}` +
            (pg ? ` db ${r.databaseUs.toFixed(0)}/${o.databaseUs.toFixed(0)} conns ${r.connectionsBefore}/${o.connectionsBefore}` : '') +
            ` idle ${idle(r.idleBefore)}/${idle(o.idleBefore)} s`
          );
        });
        lines.push(`${scenario.name} by round (ratio, P/${secondLetter}): ${rounds.join('; ')}`);
      }
      for (const [name, m] of memory)
        lines.push(
          `RSS ${name === 'hand' ? second : name}: idle ${m.idle.toFixed(0)} MB, under load ${m.load.toFixed(0)} MB, idle after load ${m.afterLoad.toFixed(0)} MB (2 s), ${m.settled.toFixed(0)} MB (${SETTLE_MS / 1000} s)`,
        );
    }
    if (only.has('start')) {
      for (const contestant of setup.contestants) {
        const times: number[] = [];
        const rss: number[] = [];
        for (let i = 0; i < START_RUNS; i++) {
          const server = await start(contestant.launch, setup.probe);
          times.push(server.startSeconds);
          await sleep(1000);
          rss.push(rssMb(server.pid));
          await server.stop();
        }
        const how =
          contestant.name === 'portico' || againstPlain
            ? `\`${[contestant.launch.command, ...contestant.launch.args].join(' ')}\` in server/`
            : 'node --import tsx';
        lines.push(
          `start ${contestant.name === 'hand' ? second : contestant.name} (${how}): spawn to first authenticated 200 median ${median(times).toFixed(2)} s (${times.map((t) => t.toFixed(2)).join(', ')}), idle RSS 1 s later median ${median(rss).toFixed(0)} MB`,
        );
      }
    }
  } finally {
    await tearDown(setup, dir);
  }
  console.log(`${lines.join('\n')}\n`);
}

execFileSync('bash', [path.join(root, 'bench/setup.sh'), ...(args.instructions ? ['valgrind'] : [])], { stdio: 'inherit' });
const databases = args.database === 'both' ? ['sqlite', 'postgres'] : [args.database];
for (const database of databases) {
  const go = args.instructions ? instructions : args.allocations ? allocations : args.profile ? profile : run;
  if (database === 'sqlite') await go(await sqliteSetup());
  else if (database === 'postgres') await go(await postgresSetup());
  else throw new Error(`Unknown --database '${database}': use sqlite, postgres or both.`);
}
