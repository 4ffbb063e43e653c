// A user who exported a real FOLIO's settings (the README has them export FOLIO_PASSWORD, and
// FOLIO_URL for their own runs) and then runs `make test`, `make drills`, `make demo`,
// `make perf-gate` or a benchmark reaches nothing but this machine's stack. "The user's FOLIO" is a
// sentinel server on 127.0.0.1 that counts every connection made to it: FOLIO_URL, the database
// (FOLIO_DB_HOST/PORT), k6's own InfluxDB output and the HTTP(S) proxy all point at it, so a
// request to https://folio.example.org from k6, curl or Go arrives there too (as a CONNECT). Each
// entry point is run for real through make; every process it starts is read from /proc (its
// environment as it was started), and none of them may carry the user's settings.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repo, env, bin, childEnv, run, descendants } from './helpers.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let sentinel;
const contacts = [];

before(async () => {
  const server = createServer((req, res) => {
    contacts.push(`${req.method} ${req.headers.host}${req.url}`);
    res.writeHead(503).end();
  });
  server.on('connect', (req, socket) => {
    contacts.push(`CONNECT ${req.url}`);
    socket.destroy();
  });
  server.on('connection', (socket) => contacts.push(`connection from port ${socket.remotePort}`));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  sentinel = { server, url: `http://127.0.0.1:${server.address().port}`, port: server.address().port };
});
after(() => sentinel.server.close());

// The user's shell: a real FOLIO's target, credentials, data and reindex settings, and a proxy
// through which any request off this machine would pass. folioUrl: where FOLIO_URL points.
function userShell(folioUrl = sentinel.url) {
  return {
    FOLIO_URL: folioUrl, FOLIO_PASSWORD: 'x-real-password', FOLIO_TENANT: 'diku', FOLIO_USER: 'diku_admin',
    FOLIO_DB_HOST: '127.0.0.1', FOLIO_DB_PORT: String(sentinel.port), FOLIO_DB_PASSWORD: 'x-real-db-password',
    FOLIO_ENV: 'folio.example', K6_ENV: 'folio.example', DATA: 'db', CHECKIN_POOL: 'any', REINDEX_TENANT: 'diku', REINDEX_REPEAT: 'true',
    K6_OUT: `influxdb=${sentinel.url}/k6`, INFLUX_URL: sentinel.url,
    HTTPS_PROXY: sentinel.url, HTTP_PROXY: sentinel.url, https_proxy: sentinel.url, http_proxy: sentinel.url,
    NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost',
  };
}
// The user's values that no process after the entry point's first line may hold (the proxy and
// NO_PROXY are the machine's: kept).
const USERS = ['FOLIO_URL', 'FOLIO_PASSWORD', 'FOLIO_TENANT', 'FOLIO_USER', 'FOLIO_DB_HOST', 'FOLIO_DB_PORT', 'FOLIO_DB_PASSWORD',
  'FOLIO_ENV', 'K6_ENV', 'DATA', 'CHECKIN_POOL', 'REINDEX_TENANT', 'REINDEX_REPEAT', 'K6_OUT', 'INFLUX_URL'];
// Processes that could reach a FOLIO, a database or an InfluxDB.
const CLIENTS = new Set(['node', 'k6', 'minifolio', 'curl', 'psql', 'pg_isready', 'influx', 'telegraf']);

// Every process of the process group pgid, with its environment as it was started.
// Every process the entry point started, by parent (folio-perf runs its children, k6 among them,
// in process groups of their own, so the group of the entry point alone would miss them).
function group(root) {
  const out = [];
  for (const d of [root, ...descendants(root)]) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const environ = Object.fromEntries(readFileSync(`/proc/${d}/environ`, 'utf8').split('\0').filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ').trim();
      // Neither a command nor an environment to read: a process exiting or in the middle of an exec
      // (/proc gives its environment as empty then while its old command line still shows: seen with
      // Debian's psql, a perl wrapper that execs the real psql). Its next look, if any, says.
      if (cmd && Object.keys(environ).length) out.push({ pid: Number(d), comm, environ, cmd });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

// What is wrong with a process: a client started before the entry point's allow-list, or any
// process after it holding one of the user's values.
function problem(p, shell) {
  const gated = p.environ.FP_LOCAL_ONLY === '1';
  if (!gated && CLIENTS.has(p.comm)) return `${p.comm} (${p.cmd}) started with the caller's whole environment`;
  if (!gated) return null; // make and the entry script itself, before its first line
  const held = USERS.filter((k) => p.environ[k] === shell[k]);
  return held.length ? `${p.comm} (${p.cmd}) holds the user's ${held.join(', ')}` : null;
}

/**
 * Runs `make TARGET` with the user's shell on top of the test stack's settings, watching its
 * processes every few milliseconds until `until(process)` says so (or the entry point ends, or
 * `seconds` pass); then `stop` (a signal for the group, or null to let it finish). Returns the
 * exit code, the output, the processes seen and the problems found.
 */
async function watch(target, { shell = userShell(), vars = {}, until, stop = 'SIGKILL', seconds = 120 }) {
  // The test stack's settings (ports, directories) and the user's shell; FP_LOCAL_ONLY is the entry
  // point's to set, not the user's.
  const { FP_LOCAL_ONLY, ...stack } = childEnv(vars);
  const child = spawn('make', ['--no-print-directory', target], { cwd: repo, detached: true, env: { ...stack, ...shell } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let code;
  const exited = new Promise((r) => child.on('close', (c, sig) => r((code = c ?? sig))));
  const seen = new Map();
  const problems = new Set();
  let reached = null;
  const end = Date.now() + seconds * 1000;
  while (code === undefined && Date.now() < end) {
    for (const p of group(child.pid)) {
      // comm in the key too: a look during an exec can read the old comm and the new command line
      // (seen: a k6 taken for node), and the next look, consistent, must count as a new process.
      const key = `${p.pid} ${p.comm} ${p.cmd}`;
      if (seen.has(key)) continue;
      seen.set(key, p);
      const bad = problem(p, shell);
      if (bad) problems.add(bad);
      if (!reached && p.environ.FP_LOCAL_ONLY === '1' && until(p)) reached = p;
    }
    if (reached || problems.size) break;
    await sleep(15);
  }
  if (code === undefined && stop) process.kill(-child.pid, stop);
  const timer = setTimeout(() => code === undefined && process.kill(-child.pid, 'SIGKILL'), seconds * 1000);
  await exited;
  clearTimeout(timer);
  return { code, out, seen: [...seen.values()], problems: [...problems], reached };
}

const firstLine = (out, name) => {
  const line = out.split('\n').find((l) => l.startsWith(`folio-perf: ${name} runs on this machine only`));
  assert.ok(line, `${name} says what it left out:\n${out}`);
  for (const k of ['FOLIO_URL', 'FOLIO_PASSWORD', 'FOLIO_ENV', 'K6_ENV', 'REINDEX_TENANT', 'DATA', 'CHECKIN_POOL']) assert.match(line, new RegExp(`\\b${k}\\b`), line);
  assert.doesNotMatch(line, /x-real|example\.org|127\.0\.0\.1/, 'names only, never a value');
};

// Entry points stopped at their first client process (it shows the environment the whole entry
// point runs with): running make test or make drills to the end from inside make test would take
// half an hour; `make demo` and `make perf-gate` run for real below.
for (const [target, name] of [['test', 'test.sh'], ['drills', 'drills.sh'], ['bench-k6', 'bench-k6'], ['bench-jmeter', 'bench-jmeter'], ['bench-leak', 'bench-leak.sh'],
  ['bench-minifolio', 'bench.sh'], ['bench-gate', 'bench-gate'], ['bench-samples', 'bench-samples'], ['bench-search', 'bench-search'], ['bench-report', 'bench-report']]) {
  test(`make ${target}: the user's FOLIO settings reach none of its processes`, async () => {
    // (the allow-list's own address check, tools/local-env.mjs, runs before the entry point's first line)
    const r = await watch(target, { until: (p) => CLIENTS.has(p.comm) && !p.cmd.includes('local-env.mjs check'), seconds: 90 });
    assert.deepEqual(r.problems, [], r.out);
    assert.ok(r.reached, `make ${target} started a client after its allow-list (seen: ${r.seen.map((p) => p.comm).join(' ')})\n${r.out}`);
    console.log(`make ${target}: ${r.reached.cmd.slice(0, 80)} started with FP_LOCAL_ONLY=1 and none of the user's settings`);
    firstLine(r.out, name);
    assert.deepEqual(contacts, [], 'the sentinel FOLIO was contacted');
  });
}

test('make demo with FOLIO_URL=https://folio.example.org exported: k6 loads the local minifolio; nothing leaves the machine', async () => {
  const shell = userShell('https://folio.example.org');
  const minifolio = `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`;
  // Up to the load (minifolio restarted under lotus, seeded when empty, reset), then Ctrl-C.
  const r = await watch('demo', { shell, until: (p) => p.comm === 'k6', stop: 'SIGINT', seconds: 240 });
  assert.deepEqual(r.problems, [], r.out);
  assert.ok(r.reached, `the demo's k6 started:\n${r.out}`);
  assert.equal(r.reached.environ.FOLIO_URL, minifolio, 'k6 loads the local minifolio');
  assert.equal(r.reached.environ.FP_LOCAL_ONLY, '1');
  assert.match(r.out, new RegExp(`==> k6: scripts/check-in-check-out.js PROFILE=demo against minifolio \\(lotus\\)`));
  firstLine(r.out, 'demo.sh');
  assert.deepEqual(contacts, [], 'something was sent off the machine (the proxy saw it) or to the user\'s database/InfluxDB');
});

test('make perf-gate with the user\'s FOLIO exported: every run on minifolio, the verdict from the test stack\'s InfluxDB', async () => {
  const minifolio = `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`;
  const r = await watch('perf-gate', { vars: { GATE_RUNS: '2', GATE_DURATION: '10s' }, until: () => false, stop: null, seconds: 420 });
  assert.deepEqual(r.problems, [], r.out);
  const k6 = r.seen.filter((p) => p.comm === 'k6');
  assert.ok(k6.length >= 3, `two baseline runs and the candidate: ${k6.length} k6 processes seen\n${r.out}`);
  for (const p of k6) assert.equal(p.environ.FOLIO_URL, minifolio, p.cmd);
  // make turns the gate's 99 (a regression judged: short runs on a busy machine) into its own 2
  assert.ok(r.code === 0 || (r.code === 2 && /perf-gate\] Error 99$/m.test(r.out)), `the gate ended with its verdict (0 or 99), not ${r.code}:\n${r.out}`);
  assert.match(r.out, /^check +metric +stat +baseline +candidate/m, 'the verdict\'s table');
  firstLine(r.out, 'perf-gate.sh');
  assert.deepEqual(contacts, []);
});

// Below the entry points, a second line of defence: with FP_LOCAL_ONLY=1 (set by them) a target
// off this machine is refused by name, before anything is contacted.
test('FP_LOCAL_ONLY=1: folio-perf run, k6 and folio-perf report refuse https://folio.example.org in one line, contacting nothing', () => {
  const off = { ...userShell('https://folio.example.org'), FOLIO_DB_HOST: '', FOLIO_DB_PORT: '', K6_OUT: '', FOLIO_ENV: 'local', K6_ENV: '' };
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], { env: { ...off, PROFILE: 'smoke' }, timeoutMs: 60_000 });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^folio-perf: config: FOLIO_URL "https:\/\/folio\.example\.org" is not on this machine; fix: /);
  assert.doesNotMatch(r.stdout, /==> (target|k6|minifolio)/, 'stopped before anything else');

  const envFile = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], { env: { ...off, FOLIO_URL: '', FOLIO_ENV: 'folio.example' }, timeoutMs: 60_000 });
  assert.equal(envFile.status, 1);
  assert.match(envFile.stderr, /folio\.url in env\/folio\.example\.json "https:\/\/okapi\.example\.org" is not on this machine/);

  // k6 itself (the scripts' config), CICO and the search workflow with a reindex tenant: the demo's
  // reindex can only ever reach a FOLIO on this machine.
  for (const [script, vars] of [['check-in-check-out.js', {}], ['mod-search.js', { REINDEX_TENANT: 'fs09000001' }]]) {
    const k = run(bin('k6'), ['run', '--quiet', '--address=', join(repo, 'scripts', script)], { env: { ...off, ...vars }, timeoutMs: 60_000 });
    assert.notEqual(k.status, 0, `${script}: ${k.stdout}${k.stderr}`);
    assert.match(k.stdout + k.stderr, /FOLIO_URL \\?"https:\/\/folio\.example\.org\\?" is not on this machine/, script);
  }
  // The report asks no FOLIO anything (what was tested is recorded at the run's start): a FOLIO
  // URL given to it is refused, not contacted.
  const rep = run('node', [join(repo, 'tools', 'folio-perf.mjs'), 'report', 'no-such-run', '--folio-url', 'https://folio.example.org'], { env: off });
  assert.equal(rep.status, 1);
  assert.match(rep.stderr, /Unknown option '--folio-url'/);
  assert.deepEqual(contacts, [], 'nothing reached the proxy (k6 and curl would CONNECT through it to folio.example.org)');
});

test('source tools/test-env.sh drops the user\'s FOLIO settings from the shell; an entry point refuses a remote FP_PG_DSN', () => {
  const shell = userShell('https://folio.example.org');
  const r = run('bash', ['-c', '. tools/test-env.sh && env'], { env: { ...shell, FOLIO_DB_PASSWORD: 'x-real-db-password' } });
  assert.equal(r.status, 0, r.stderr);
  const after = Object.fromEntries(r.stdout.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  for (const k of USERS) assert.ok(after[k] === undefined || after[k] !== shell[k], `${k} is still ${after[k]}`);
  assert.equal(after.FP_LOCAL_ONLY, '1');
  const dsn = run(join(repo, 'tools', 'local-env.sh'), ['--name=bench-minifolio-seed', 'true'], { env: { FP_PG_DSN: 'postgres://folio:S3cret@db.example.org:5432/folio' } });
  assert.equal(dsn.status, 1);
  assert.equal(dsn.stderr.trim(), 'folio-perf: FP_PG_DSN (db.example.org:5432) is not on this machine; fix: unset it (tests, drills, the demo, the gate and the benchmarks use their own stack on 127.0.0.1)');
});
