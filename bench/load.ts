/**
 * The load generator: wrk (one thread, its own process) driven by a Lua script that draws a
 * random order id per request and prints the run's figures as JSON when it ends.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CUSTOMERS, ORDERS } from './bench-data.js';

export interface Scenario {
  name: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** Path with `{id}` for a random order id. */
  path: string;
  /** Body (JSON) with `{customer}` for a random customer id. */
  body?: string;
}

export const SCENARIOS: Scenario[] = [
  { name: 'list', method: 'GET', path: `/api/v2/db/_table/orders?filter=${encodeURIComponent("status = 'shipped'")}&limit=100` },
  { name: 'get', method: 'GET', path: '/api/v2/db/_table/orders/{id}' },
  {
    name: 'insert',
    method: 'POST',
    path: '/api/v2/db/_table/orders',
    body: '{"resource":[{"customer_id":{customer},"status":"new","total":12.5,"note":"bench"}]}',
  },
  {
    name: 'patch',
    method: 'PATCH',
    path: '/api/v2/db/_table/orders/{id}',
    body: JSON.stringify({ status: 'paid', note: 'patched by the benchmark' }),
  },
];

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  pid: number;
}

const lua = (value: string) => JSON.stringify(value); // a JSON string is a valid Lua string here (ASCII, no control characters)

/**
 * The request is written out in the order `headers` lists, not through `wrk.headers` and
 * `wrk.format`: those iterate a Lua table, whose order changes from one wrk process to the next
 * (three orders in five runs). Every run would then bring the server request headers objects of
 * another hidden class, and V8 would throw away the optimised request path at the start of each
 * run ("wrong map" at `req.headers.host` and every header read after it) until it had seen enough
 * orders: the first rounds paid the recompilation (bench/README.md, seventeenth session, h7).
 * A client sends its headers in one order.
 */
export function script(scenario: Scenario, headers: Record<string, string>): string {
  const fixed = Object.entries(headers).map(([name, value]) => `{ ${lua(name)}, ${lua(value)} }`);
  return [
    `local method, headers = ${lua(scenario.method)}, { ${fixed.join(', ')} }`,
    `local path, body = ${lua(scenario.path)}, ${scenario.body === undefined ? 'nil' : lua(scenario.body)}`,
    'request = function()',
    `  local p = string.gsub(path, "{id}", tostring(math.random(1, ${ORDERS})))`,
    `  local b = body and string.gsub(body, "{customer}", tostring(math.random(1, ${CUSTOMERS})))`,
    '  local lines = { method .. " " .. p .. " HTTP/1.1", "Host: " .. wrk.headers["Host"] }',
    '  for _, header in ipairs(headers) do lines[#lines + 1] = header[1] .. ": " .. header[2] end',
    '  if b then lines[#lines + 1] = "Content-Length: " .. string.len(b) end',
    '  lines[#lines + 1] = ""',
    '  lines[#lines + 1] = b or ""',
    '  return table.concat(lines, "\\r\\n")',
    'end',
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'\\nRESULT {"requests":%d,"us":%d,"p50":%d,"p99":%d,"status":%d,"errors":%d}\\n\',',
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))',
    'end',
  ].join('\n');
}

/** Starts wrk against `url`; resolves when it ends. `pid` is wrk's, to count its CPU. */
export function startLoad(
  url: string,
  scenario: Scenario,
  headers: Record<string, string>,
  options: { connections: number; seconds: number; dir: string },
): { pid: number; done: Promise<LoadResult> } {
  const file = path.join(options.dir, `${scenario.name}.lua`);
  fs.writeFileSync(file, script(scenario, headers));
  let pid = 0;
  const done = new Promise<LoadResult>((resolve, reject) => {
    const child = execFile(
      'wrk',
      ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', file, url],
      (error, stdout) => {
        if (error) return reject(error);
        const match = /RESULT (\{.*\})/.exec(stdout);
        if (!match) return reject(new Error(`wrk printed no result:\n${stdout}`));
        const r = JSON.parse(match[1]) as { requests: number; us: number; p50: number; p99: number; status: number; errors: number };
        if (r.status > 0 || r.errors > 0)
          return reject(new Error(`${scenario.name} on ${url}: ${r.status} non-2xx responses, ${r.errors} socket errors`));
        resolve({
          requests: r.requests,
          seconds: r.us / 1e6,
          rps: r.requests / (r.us / 1e6),
          p50Ms: r.p50 / 1000,
          p99Ms: r.p99 / 1000,
          pid,
        });
      },
    );
    pid = child.pid!;
  });
  return { pid, done };
}
