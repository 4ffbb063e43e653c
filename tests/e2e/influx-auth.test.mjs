// An InfluxDB with auth enabled (a throwaway InfluxDB 1.x started here, `auth-enabled = true` and
// one admin user): a whole run writes to it, shows its progress and is reported and judged from
// it, with the credentials in K6_INFLUXDB_USERNAME / K6_INFLUXDB_PASSWORD (k6's names) and
// nowhere else: not in a process's arguments, the output, the results directory or an error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv, env, repo, run, runAsync } from './helpers.mjs';

const USER = 'fp-influx-admin';
const PASSWORD = 'S3cret-influx-pw:@/?';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let influxd;
let dir;
let port;
let url;

before(async () => {
  port = Number(env('FP_INFLUX_PORT')) + 70;
  url = `http://127.0.0.1:${port}`;
  dir = mkdtempSync(join(tmpdir(), 'fp-influx-auth-'));
  writeFileSync(join(dir, 'influxdb.conf'), [
    'reporting-disabled = true',
    `bind-address = "127.0.0.1:${port + 1}"`,
    `[meta]\n  dir = "${dir}/meta"`,
    `[data]\n  dir = "${dir}/data"\n  wal-dir = "${dir}/wal"\n  query-log-enabled = false`,
    `[http]\n  bind-address = "127.0.0.1:${port}"\n  auth-enabled = true\n  log-enabled = false`,
    '[monitor]\n  store-enabled = false',
    '[logging]\n  level = "warn"',
  ].join('\n') + '\n');
  influxd = spawn(process.env.FP_INFLUXD || 'influxd', ['-config', join(dir, 'influxdb.conf')], { stdio: 'ignore', env: childEnv() });
  const t0 = Date.now();
  while (Date.now() - t0 < 30_000 && !(await fetch(`${url}/ping`).then((r) => r.ok, () => false))) await sleep(200);
  // The first user may be created without credentials; after it, nothing is answered without them.
  const q = (s, headers = {}) => fetch(`${url}/query?${new URLSearchParams({ q: s })}`, { method: 'POST', headers });
  assert.equal((await q(`CREATE USER "${USER}" WITH PASSWORD '${PASSWORD}' WITH ALL PRIVILEGES`)).status, 200);
  assert.equal((await q('SHOW DATABASES')).status, 401, 'InfluxDB refuses a query without credentials');
});
after(() => {
  influxd?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

const creds = () => ({ K6_INFLUXDB_USERNAME: USER, K6_INFLUXDB_PASSWORD: PASSWORD });
const cli = (args, extra) => run('node', [join(repo, 'tools', 'folio-perf.mjs'), ...args], { env: { FP_INFLUX_URL: url, ...extra }, timeoutMs: 60_000 });
const files = (d) => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? files(join(d, f)) : [join(d, f)]));

// Every process's arguments, read from /proc while the run goes on.
async function argvsWhile(promise) {
  const seen = new Set();
  let done = false;
  promise.finally(() => (done = true));
  while (!done) {
    for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        seen.add(readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' '));
      } catch {
        // gone
      }
    }
    await sleep(100);
  }
  return [...seen];
}

test('a run writes to an InfluxDB with auth, shows its progress from it, and is reported and judged from it', async () => {
  const testid = `e2e-influx-auth-${Date.now()}`;
  const running = runAsync(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: childEnv({ PROFILE: 'smoke', DURATION: '15s', MINIFOLIO_PROFILE: 'fast', TESTID: testid, FP_INFLUX_PORT: String(port), PROGRESS_EVERY: '4', ...creds() }),
    timeoutMs: 240_000,
  });
  const argvs = await argvsWhile(running);
  const r = await running;
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 0, out);
  assert.match(out, /==> samples: all \d+ written to InfluxDB/);
  const progress = out.split('\n').filter((l) => l.startsWith('==> progress: '));
  assert.ok(progress.some((l) => /[1-9]\d* requests \(\d+ failed\) in the last 4 s/.test(l)), `progress read from the InfluxDB with auth:\n${progress.join('\n')}`);
  assert.ok(argvs.length > 10 && !argvs.some((a) => a.includes(PASSWORD)), 'the password is in no process\'s arguments');

  const rep = cli(['report', testid], creds());
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  const verdict = cli(['verdict', testid], creds());
  assert.ok([0, 99].includes(verdict.status), verdict.stdout + verdict.stderr);
  assert.match(verdict.stdout, /transaction_duration\{transaction:check-out\}/);
  const base = cli(['baseline', testid, testid, '--out', join(dir, 'baseline.json')], creds());
  assert.equal(base.status, 0, base.stdout + base.stderr);

  // Without the credentials: one line saying which are missing; with wrong ones in the URL, the
  // message shows the URL without them.
  const none = cli(['report', testid], {});
  assert.equal(none.status, 1);
  assert.equal(none.stderr.trim().split('\n').length, 1, none.stderr);
  assert.match(none.stderr, /^folio-perf: InfluxDB at http:\/\/127\.0\.0\.1:\d+ wants credentials .*fix: set K6_INFLUXDB_USERNAME and K6_INFLUXDB_PASSWORD/);
  const wrong = cli(['verdict', testid, '--influx', `http://${USER}:not-${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`], {});
  assert.equal(wrong.status, 1, wrong.stdout + wrong.stderr);
  assert.doesNotMatch(wrong.stderr, /not-|S3cret/, wrong.stderr);

  // Nowhere in what the run and the tools wrote or said.
  for (const text of [out, rep.stdout + rep.stderr, verdict.stdout + verdict.stderr, none.stderr, wrong.stderr]) assert.ok(!text.includes(PASSWORD));
  for (const f of files(join(repo, 'results', testid))) assert.ok(!readFileSync(f, 'latin1').includes(PASSWORD), f);
  rmSync(join(repo, 'results', testid), { recursive: true, force: true });
});
