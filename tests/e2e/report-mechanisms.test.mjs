// The report's database and longevity sections on a real run: a short CICO run under minifolio's
// `missing-index` profile (tools/run.sh snapshots pg_stat_statements and the module logs' line
// counts around k6), then the report. Its without-index table shows the profile's mechanism
// (mod-circulation-storage logs RMB's line for the dropped loan.userId index), its statement
// counts agree with the run's transactions, its connections and per-period response times with
// InfluxDB, and --module-logs (the real-FOLIO path, lines dated in the run's window) agrees with
// the snapshots.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repo, env, influxQuery, run, mdTable } from './helpers.mjs';

const testid = `e2e-report-mech-${Date.now()}`;
const dir = join(repo, 'results', testid);
const logs = join(env('FP_STACK_DIR'), 'minifolio', 'logs');
const cli = (args) => run('node', [join(repo, 'tools', 'folio-perf.mjs'), ...args], { env: { FP_INFLUX_URL: env('FP_INFLUX_URL') }, timeoutMs: 60_000 });
let summary;
let md;


before(() => {
  const r = run(join(repo, 'tools', 'run.sh'), [], {
    env: { PROFILE: 'smoke', VUS: '2', DURATION: '30s', MINIFOLIO_PROFILE: 'missing-index', TESTID: testid, SEED_ITEMS: '3000', SEED_USERS: '100', SEED_LOANS: '100' },
    timeoutMs: 300_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const rep = cli(['report', testid]);
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  md = readFileSync(join(dir, 'report.md'), 'utf8');
});

test('without-index lines: mod-circulation-storage logged them during the run (the profile dropped its loan.userId index)', () => {
  const { rows } = mdTable(md, 'RMB "Doing … without index" lines');
  const n = Object.fromEntries(rows.map(([m, v]) => [m, Number(v)]));
  assert.ok(n['mod-circulation-storage'] > 0, JSON.stringify(n));
  for (const [m, v] of Object.entries(n)) if (m !== 'mod-circulation-storage') assert.equal(v, 0, `${m} logs no such line`);
  // the snapshots' own numbers
  const [a, b] = ['start', 'end'].map((w) => JSON.parse(readFileSync(join(dir, `index-lines-${w}.json`), 'utf8')));
  assert.equal(n['mod-circulation-storage'], b['mod-circulation-storage'] - (a['mod-circulation-storage'] ?? 0));
  // the userId lines, dated in the run's own window, are among them
  const stamps = readFileSync(join(logs, 'mod-circulation-storage.log'), 'utf8').split('\n').filter((l) => l.includes('without index for userId'));
  assert.ok(stamps.length > 0, 'the profile\'s userId lines are in the log');
});

test('--module-logs (lines dated in the run\'s window) agrees with the snapshots: some, and no more', () => {
  const rep = cli(['report', testid, '--module-logs', logs]);
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  const text = readFileSync(join(dir, 'report.md'), 'utf8');
  const { rows } = mdTable(text, 'RMB "Doing … without index" lines');
  const byLogs = Number(rows.find((r) => r[0] === 'mod-circulation-storage')[1]);
  const bySnap = Number(mdTable(md, 'RMB "Doing … without index" lines').rows.find((r) => r[0] === 'mod-circulation-storage')[1]);
  // The window (first to last sample) lies inside the snapshots' span (k6's setup and teardown around it).
  assert.ok(byLogs > 0 && byLogs <= bySnap, `${byLogs} in the window, ${bySnap} between the snapshots`);
  assert.match(text, /log lines dated in the run's window/);
  const bad = cli(['report', testid, '--module-logs', join(dir, 'no-such-dir')]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^folio-perf: --module-logs .* is not a directory; fix: /);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
});

test('top statements: the loan INSERT ran once per check-out; the snapshots\' own query is not listed', () => {
  const { rows, caption } = mdTable(md, 'Top 10 statements by total time');
  assert.match(caption, /\d+ statements called/);
  const loanInsert = mdTable(md, 'Top 10 statements by total time').rows.concat(mdTable(md, 'Top 10 statements by mean time').rows).find((r) => /^INSERT INTO fs09000000_mod_circulation_storage\.loan /.test(r[0]));
  const checkouts = summary.tables.responseTimes.reduce((a, r) => a + (r['check-out']?.count ?? 0), 0);
  if (loanInsert) {
    // a check-out still in flight when its step ended inserted its loan without being counted
    assert.ok(Number(loanInsert[1]) >= checkouts && Number(loanInsert[1]) <= checkouts + 2, `${loanInsert[1]} loan inserts, ${checkouts} check-outs`);
  } else {
    const end = JSON.parse(readFileSync(join(dir, 'pg-statements-end.json'), 'utf8'));
    assert.ok(end.some((s) => /^INSERT INTO fs09000000_mod_circulation_storage\.loan /.test(s.query)), 'the loan INSERT was recorded');
  }
  for (const r of rows) assert.ok(!/pg_stat_statements/.test(r[0]));
  // Mean ms = Total ms / Calls on every row
  for (const r of rows) assert.ok(Math.abs(Number(r[2]) / Number(r[1]) - Number(r[3])) < 0.01 + Number(r[3]) * 0.01, r.join(' | '));
});

// The step's window, recomputed from raw rows of its user count (setup's and teardown's requests,
// outside any step, carry none).
async function windowOf() {
  const [a] = await influxQuery(`SELECT "value" FROM "http_reqs" WHERE "testid" = '${testid}' AND "vus" = '2' ORDER BY time ASC LIMIT 1`);
  const [b] = await influxQuery(`SELECT "value" FROM "http_reqs" WHERE "testid" = '${testid}' AND "vus" = '2' ORDER BY time DESC LIMIT 1`);
  return [a.values[0][0], b.values[0][0]];
}

test('connections: the mean of numbackends over the step, from raw rows', async () => {
  const [from, to] = await windowOf();
  const [s] = await influxQuery(`SELECT "numbackends" FROM "postgresql" WHERE time >= ${from}ms AND time <= ${to}ms AND "db" = 'folio'`);
  assert.ok(s && s.values.length > 0, 'Telegraf wrote postgresql samples during the run');
  const vals = s.values.map((v) => v[1]);
  const { rows } = mdTable(md, 'Database connections');
  assert.deepEqual(rows.map((r) => r[0]), ['2']);
  assert.equal(rows[0][1], (vals.reduce((x, y) => x + y, 0) / vals.length).toFixed(1));
  assert.equal(rows[0][2], String(Math.max(...vals)));
});

test('longevity: a run under 3 hours is cut in thirds; each third\'s average is InfluxDB\'s over that third', async () => {
  const [from, to] = await windowOf();
  const { caption, rows } = mdTable(md, 'Response time per period');
  assert.match(caption, /shorter than 3 hours: first, middle and last third/);
  assert.deepEqual(rows.map((r) => r[0]).sort(), ['check-in', 'check-out']);
  const third = (to - from) / 3;
  for (const [i, col] of [[0, 1], [2, 5]]) {
    const lo = from + i * third;
    const hi = i === 2 ? to : from + (i + 1) * third;
    const series = await influxQuery(`SELECT "value" FROM "transaction_duration" WHERE "testid" = '${testid}' AND "transaction" = 'check-out' AND time >= ${Math.floor(lo)}ms AND time <= ${Math.ceil(hi)}ms`);
    const v = series[0].values.map((x) => x[1]);
    const avg = v.reduce((x, y) => x + y, 0) / v.length / 1000;
    assert.equal(rows.find((r) => r[0] === 'check-out')[col], avg.toFixed(3), `check-out, period ${i}`);
  }
  // the memory table states its rule and gives each of the run's modules a verdict
  const mem = mdTable(md, 'Module memory (RSS) trend');
  assert.match(mem.caption, /leaks when its RSS grows by more than \d+ % of its run average per hour/);
  assert.ok(mem.rows.some((r) => r[0] === 'mod-circulation'));
  for (const r of mem.rows) assert.ok(['leak', 'no leak', 'too short'].includes(r[6]), r.join(' | '));
});
