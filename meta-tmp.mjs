import * as esbuild from 'esbuild';
const r = await esbuild.build({ entryPoints: ['dist/runtime/index.js'], outdir: '/tmp/rbm', bundle: true, splitting: true, format: 'esm', platform: 'node', target: 'node20', metafile: true, write: false,
  external: ['better-sqlite3','pg-native','mysql2','soap','@xmldom/xmldom','ioredis','rate-limiter-flexible','amqplib','mqtt','webdav','ssh2-sftp-client','basic-ftp','nodemailer','@modelcontextprotocol/sdk','yaml','swagger-ui-dist'] });
const inputs = r.metafile.inputs;
const start = 'dist/runtime/http/run-server.js';
const prev = new Map([[start, null]]);
const queue = [start];
while (queue.length) { const f = queue.shift(); for (const i of inputs[f]?.imports ?? []) { if (i.kind === 'dynamic-import' || i.external) continue; if (!prev.has(i.path)) { prev.set(i.path, f); queue.push(i.path); } } }
const targets = process.argv.slice(2);
for (const t of targets) { const hit = [...prev.keys()].find((k) => k.includes(t)); if (!hit) { console.log(t, 'not reached statically'); continue; } const chain = []; for (let c = hit; c; c = prev.get(c)) chain.push(c.replace('dist/runtime/','')); console.log(chain.reverse().join(' -> ')); }
let bytes = 0; for (const k of prev.keys()) bytes += inputs[k]?.bytes ?? 0; console.log('static closure', prev.size, 'files', (bytes/1024).toFixed(0), 'KB');
const by = {};
for (const k of prev.keys()) { const m = k.match(/node_modules\/((@[^/]+\/)?[^/]+)/); const g = m ? m[1] : k.replace('dist/runtime/','').split('/').slice(0,2).join('/'); by[g] = (by[g]||0) + (inputs[k]?.bytes ?? 0); }
console.log(Object.entries(by).sort((a,b)=>b[1]-a[1]).slice(0,45).map(([k,v])=>`${k}:${(v/1024).toFixed(0)}k`).join(' '));
