// A database password made of the characters that break URLs, libpq strings
// and TOML (@ # / ? % space ' " \) works through the whole native path: the
// stack (initdb, psql, Telegraf's postgresql input) and a run (folio-perf run:
// minifolio's URL, k6's DSN), and shows up in no output, log or result.
// PostgreSQL fixes the password when its data directory is created, so this
// test has a stack of its own (temporary directory, ports +50 from the test
// stack's), stopped and deleted at the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, repo, run, ownMinifolioPort } from './helpers.mjs';

const PASSWORD = `p@ss w/#?%'"\\x`;

function filesUnder(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) {
      if (name !== 'data' && name !== 'wal' && name !== 'meta') out.push(...filesUnder(p)); // database files, not logs
    } else if (st.isFile() && st.size < 50 << 20) out.push(p);
  }
  return out;
}

test('a password with @ # / ? % space quote and backslash: stack up, a run, no leak', async (t) => {
  const off = 50;
  const dir = mkdtempSync(join(tmpdir(), 'fp-pw-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user when the tests run as root
  const testid = `e2e-pw-${Date.now()}`;
  const stackEnv = {
    FP_STACK_DIR: join(dir, 'stack'),
    FP_PG_PORT: String(Number(env('FP_PG_PORT')) + off),
    FP_INFLUX_PORT: String(Number(env('FP_INFLUX_PORT')) + off),
    FP_INFLUX_RPC_PORT: String(Number(env('FP_INFLUX_RPC_PORT')) + off),
    FP_TELEGRAF_PORT: String(Number(env('FP_TELEGRAF_PORT')) + off),
    FP_MINIFOLIO_PORT: String(ownMinifolioPort(3)),
    FOLIO_DB_PASSWORD: PASSWORD,
    FP_SEARCH: '0', // the test stack's environment asks for OpenSearch; this stack needs none
  };
  t.after(() => {
    run(join(repo, 'stack', 'stack.sh'), ['down'], { env: stackEnv, timeoutMs: 90_000 });
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(repo, 'results', testid), { recursive: true, force: true });
  });

  const up = run(join(repo, 'stack', 'stack.sh'), ['up'], { env: stackEnv, timeoutMs: 120_000 });
  assert.equal(up.status, 0, up.stdout + up.stderr);
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { ...stackEnv, PROFILE: 'smoke', DURATION: '10s', MINIFOLIO_PROFILE: 'fast', TESTID: testid, SEED_ITEMS: '300', SEED_USERS: '30', SEED_LOANS: '5' },
    timeoutMs: 240_000,
  });
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 0, out);
  assert.match(out, /Thresholds: \d+\/\d+ passed/);

  // Telegraf's postgresql input logged in with it (every 5 s).
  const influx = `http://127.0.0.1:${stackEnv.FP_INFLUX_PORT}`;
  let points = 0;
  for (let i = 0; i < 30 && points === 0; i++) {
    const res = await fetch(`${influx}/query?db=k6&q=${encodeURIComponent('SELECT count("numbackends") FROM "postgresql"')}`).then((x) => x.json());
    points = res.results[0].series?.[0].values[0][1] ?? 0;
    if (!points) await new Promise((res2) => setTimeout(res2, 1000));
  }
  assert.ok(points > 0, "Telegraf's postgresql input wrote nothing: it could not log in");

  // Neither the password nor its URL-encoded form anywhere.
  const forms = [PASSWORD, encodeURIComponent(PASSWORD), 'p@ss w/'];
  for (const f of forms) assert.ok(!out.includes(f) && !up.stdout.includes(f) && !up.stderr.includes(f), `"${f}" in the output`);
  const files = [...filesUnder(join(dir, 'stack')), ...filesUnder(join(repo, 'results', testid))];
  assert.ok(files.some((f) => f.endsWith('telegraf.log')) && files.some((f) => f.endsWith('summary.json')), files.join('\n'));
  for (const f of files) {
    const text = readFileSync(f, 'latin1');
    for (const form of forms) assert.ok(!text.includes(form), `"${form}" in ${f}`);
  }
});
