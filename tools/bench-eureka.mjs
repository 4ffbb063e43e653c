#!/usr/bin/env node
// `make bench-eureka`: what the Eureka platform's extra hops cost per request
// against the Okapi path, measured in one run (not a test: the figures depend
// on the machine). Two minifolio deployments on one seeded tenant of their
// own: Okapi (`up --profile fast`: gateway → module) and Eureka (`up --profile
// sunflower`: kong → sidecar → module, module-to-module calls sidecar to
// sidecar, permissions decided by the stack's Keycloak). For a few endpoints,
// BENCH_EUREKA_ROUNDS rounds each time BENCH_EUREKA_SAMPLES sequential requests
// per side, the sides in rotating order within a round (so a machine that
// slows down slows both), plus the floor: the module called directly, without
// any gateway. Per side: the median latency (median of the rounds' medians)
// and the CPU each process group spent per request (/proc), so the hop's cost
// shows in time and in CPU per process, beside PTF's published figure.
//
// Environment: BENCH_EUREKA_PORT (Okapi's gateway; Eureka's kong is 100 above;
// default FP_MINIFOLIO_PORT + 22000), FP_KEYCLOAK_PORT, FP_KEYCLOAK_ADMIN_PASSWORD,
// MINIFOLIO_DB (the make target sets it), BENCH_EUREKA_ROUNDS (default 7),
// BENCH_EUREKA_SAMPLES (default 100). The tenant eureka_bench and its realm
// are created here and removed at the end.

import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setting } from './defaults.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(repo, 'bin', 'minifolio');
// Far from the stacks' own minifolio ports, shifted as they are.
const base = Number(process.env.BENCH_EUREKA_PORT || Number(setting('FP_MINIFOLIO_PORT')) + 22000);
const okapiPort = base;
const kongPort = base + 100;
const kcURL = `http://127.0.0.1:${setting('FP_KEYCLOAK_PORT')}`;
const rounds = Number(process.env.BENCH_EUREKA_ROUNDS || 7);
const samples = Number(process.env.BENCH_EUREKA_SAMPLES || 100);
const tenant = 'eureka_bench';
const password = 'bench-admin-pw'; // the bench tenant's own operator, local only
const stack = process.env.FP_STACK_DIR || join(repo, '.stack');
const runDirs = { okapi: join(stack, 'bench-eureka-okapi'), eureka: join(stack, 'bench-eureka-eureka') };

function die(cause, fix) {
  console.error(`folio-perf: ${cause}. Fix: ${fix}`);
  process.exit(1);
}

function mini(args, env = {}) {
  const r = spawnSync(bin, args, { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`minifolio ${args[0]}: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function send(method, url, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString(),
        ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

// CPU (utime + stime, in clock ticks of 10 ms) of this deployment's processes
// by group, read from /proc by the run dir's pid files.
function cpuTicks(side) {
  const out = {};
  for (const f of readdirSync(runDirs[side]).filter((n) => n.endsWith('.pid'))) {
    const name = f.slice(0, -4);
    const group = name === 'okapi' || name === 'kong' ? 'gateway' : name.startsWith('sidecar-') ? 'sidecars' : 'modules';
    try {
      const pid = readFileSync(join(runDirs[side], f), 'utf8').trim();
      const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = st.slice(st.lastIndexOf(')') + 2).split(' ');
      out[group] = (out[group] || 0) + Number(fields[11]) + Number(fields[12]);
    } catch {
      // a process that is gone counts nothing
    }
  }
  return out;
}

function keycloakTicks() {
  try {
    const pid = readFileSync(join(stack, 'run', 'keycloak.pid'), 'utf8').trim();
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function keycloakAdmin() {
  const form = new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username: 'admin',
    password: process.env.FP_KEYCLOAK_ADMIN_PASSWORD || '' });
  const r = await send('POST', `${kcURL}/realms/master/protocol/openid-connect/token`,
    { 'Content-Type': 'application/x-www-form-urlencoded' }, form.toString());
  return JSON.parse(r.body).access_token;
}

async function main() {
  if (!process.env.MINIFOLIO_DB) die('MINIFOLIO_DB is not set', 'run it as make bench-eureka');
  if (!process.env.FP_KEYCLOAK_ADMIN_PASSWORD) die('FP_KEYCLOAK_ADMIN_PASSWORD is not set', 'run it as make bench-eureka');
  try {
    await send('GET', `${kcURL}/realms/master`);
  } catch {
    die(`Keycloak does not answer at ${kcURL}`, 'start the stack with it: make stack-up-eureka');
  }
  console.log(`==> bench-eureka: seeding ${tenant}; Okapi (fast) on ${okapiPort}, Eureka (sunflower) on ${kongPort}`);
  // The password reaches minifolio through its environment, never its command line.
  mini(['seed', '--tenant', tenant, '--admin-user', setting('FP_USER'), '--items', '200', '--users', '50', '--loans', '40',
    '--quiet', '--force'], { MINIFOLIO_ADMIN_PASSWORD: password });
  const env = { FP_KEYCLOAK_URL: kcURL };
  try {
    mini(['up', '--profile', 'fast', '--port', String(okapiPort), '--run-dir', runDirs.okapi]);
    mini(['up', '--profile', 'sunflower', '--port', String(kongPort), '--run-dir', runDirs.eureka, '--keycloak', kcURL,
      '--timeout', '180s'], env);
    await measure();
  } finally {
    for (const d of Object.values(runDirs)) spawnSync(bin, ['down', '--run-dir', d]);
    spawnSync(bin, ['drop', '--tenant', tenant], { env: process.env });
    try {
      const tok = await keycloakAdmin();
      await send('DELETE', `${kcURL}/admin/realms/${tenant}`, { Authorization: `Bearer ${tok}` });
    } catch {
      console.error(`bench-eureka: could not delete the realm ${tenant}; delete it in Keycloak's admin console`);
    }
  }
}

async function measure() {
  const creds = JSON.stringify({ username: setting('FP_USER'), password });
  const lo = await send('POST', `http://127.0.0.1:${okapiPort}/authn/login`,
    { 'X-Okapi-Tenant': tenant, 'Content-Type': 'application/json' }, creds);
  const okapiToken = lo.headers['x-okapi-token'];
  const le = await send('POST', `http://127.0.0.1:${kongPort}/authn/login-with-expiry`,
    { 'X-Okapi-Tenant': tenant, 'Content-Type': 'application/json' }, creds);
  const cookie = (le.headers['set-cookie'] || []).find((c) => c.startsWith('folioAccessToken='))?.split(';')[0];
  if (!okapiToken || !cookie) throw new Error(`login failed: okapi ${lo.status}, eureka ${le.status} ${le.body}`);
  const okapiUser = JSON.parse(Buffer.from(okapiToken.split('.')[1], 'base64url')).user_id;
  const users = JSON.parse((await send('GET', `http://127.0.0.1:${okapiPort}/users?limit=10`,
    { 'X-Okapi-Tenant': tenant, 'X-Okapi-Token': okapiToken })).body).users;
  const patron = users.find((u) => u.barcode && u.active !== false).id;
  const endpoints = [
    { name: 'GET /groups', path: '/groups?limit=1', direct: 2 },
    { name: 'GET /circulation/loans', path: '/circulation/loans?limit=10' },
    { name: 'GET /automated-patron-blocks/{id}', path: `/automated-patron-blocks/${patron}` },
  ];
  const sides = {
    okapi: (p) => send('GET', `http://127.0.0.1:${okapiPort}${p}`, { 'X-Okapi-Tenant': tenant, 'X-Okapi-Token': okapiToken }),
    eureka: (p) => send('GET', `http://127.0.0.1:${kongPort}${p}`, { 'X-Okapi-Tenant': tenant, Cookie: cookie }),
    direct: (p, ep) => send('GET', `http://127.0.0.1:${okapiPort + ep.direct}${p}`,
      { 'X-Okapi-Tenant': tenant, 'X-Okapi-Token': okapiToken, 'X-Okapi-User-Id': okapiUser }),
  };
  console.log(`==> bench-eureka: ${rounds} rounds x ${samples} requests per side and endpoint, sides rotating`);
  const results = [];
  for (const ep of endpoints) {
    const names = ep.direct ? ['okapi', 'eureka', 'direct'] : ['okapi', 'eureka'];
    // Warm-up: keys, permission decisions, connection pools.
    for (const s of names) for (let i = 0; i < 20; i++) await sides[s](ep.path, ep);
    const lat = Object.fromEntries(names.map((s) => [s, []]));
    const roundMedians = Object.fromEntries(names.map((s) => [s, []]));
    const cpu = Object.fromEntries(names.map((s) => [s, {}]));
    for (let r = 0; r < rounds; r++) {
      const order = names.map((_, i) => names[(i + r) % names.length]);
      for (const s of order) {
        const dep = s === 'eureka' ? 'eureka' : 'okapi';
        const c0 = cpuTicks(dep);
        const k0 = keycloakTicks();
        const ms = [];
        for (let i = 0; i < samples; i++) {
          const res = await sides[s](ep.path, ep);
          if (res.status !== 200) throw new Error(`${s} ${ep.path}: ${res.status} ${res.body.slice(0, 200)}`);
          ms.push(res.ms);
        }
        const c1 = cpuTicks(dep);
        for (const g of Object.keys(c1)) cpu[s][g] = (cpu[s][g] || 0) + (c1[g] - (c0[g] || 0));
        cpu[s].keycloak = (cpu[s].keycloak || 0) + (keycloakTicks() - k0);
        lat[s].push(...ms);
        roundMedians[s].push(median(ms));
      }
    }
    results.push({ ep, names, lat, roundMedians, cpu });
  }
  report(results);
}

function report(results) {
  const n = rounds * samples;
  const fmt = (x) => x.toFixed(2);
  console.log('');
  console.log('| endpoint | Okapi p50 / p95 ms | Eureka p50 / p95 ms | direct p50 ms | Eureka - Okapi p50 | CPU ms/request Okapi (gw+mod) | CPU ms/request Eureka (kong+sidecars+mod, Keycloak) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const { ep, lat, roundMedians, cpu } of results) {
    const o = median(roundMedians.okapi);
    const e = median(roundMedians.eureka);
    const d = roundMedians.direct ? fmt(median(roundMedians.direct)) : '—';
    const per = (c, g) => ((c[g] || 0) * 10) / n;
    const oc = per(cpu.okapi, 'gateway') + per(cpu.okapi, 'modules');
    const ec = `${fmt(per(cpu.eureka, 'gateway'))} + ${fmt(per(cpu.eureka, 'sidecars'))} + ${fmt(per(cpu.eureka, 'modules'))}, ${fmt(per(cpu.eureka, 'keycloak'))}`;
    console.log(`| ${ep.name} | ${fmt(o)} / ${fmt(quantile(lat.okapi, 0.95))} | ${fmt(e)} / ${fmt(quantile(lat.eureka, 0.95))} | ${d} | ` +
      `+${fmt(e - o)} ms (${fmt(((e - o) / o) * 100)} %) | ${fmt(per(cpu.okapi, 'gateway'))} + ${fmt(per(cpu.okapi, 'modules'))} = ${fmt(oc)} | ${ec} |`);
  }
  console.log('');
  console.log('PTF (FOLIO performance team, "Eureka routing to Kong"): module-to-module calls routed through Kong were');
  console.log('6-10 % faster than through the sidecars. Here the Okapi path is the gateway-only routing, the Eureka path');
  console.log('adds a sidecar hop per module call; CPU is per request from /proc, 10 ms clock ticks summed over the run.');
}

main().catch((e) => {
  console.error(`bench-eureka: ${e.message}`);
  process.exit(1);
});
