// A run split over several k6 processes (make run RUNNERS=N) on the real stack: the runners share
// one testid and one InfluxDB, never each other's items or patrons, and one verdict over all their
// samples decides the run.
//   - 1, 2 and 4 runners with the same total VUs and think time: transactions within a few percent,
//     no failed transaction, no 422 (an item another runner holds), nothing left checked out;
//   - the aggregated p95 is k6's percentile over every sample of the testid (recomputed here from
//     the raw samples) and equals each runner's own k6 figure when judged per instance; the mean of
//     the runners' p95s is another number;
//   - a budget that fails over the union while every runner alone passes exits 99, and the other
//     way round exits 0 (samples written by the test, so both cases are exact).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, env, bin, influxQuery, run, runAsync, mdTable, waitFor, sql, descendants, cmdline, startFolioPerf } from './helpers.mjs';
import { baseFiles, baseGroups } from '../../tools/k8s-base.mjs';
import { influxWrite } from '../../dashboards/src/influx-query.mjs';

const tenant = 'fs09000000';
const tmp = mkdtempSync(join(tmpdir(), 'fp-scale-'));
const VUS = 4;
const DURATION = '30s';
// Think time keeps the load below what the shared 2-core box can serve, so the transaction count
// measures the runners' VUs, not the machine's CPU (more k6 processes cost CPU of their own).
const THINK = '300';


function k6P(values, pct) {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 1) return v[0];
  const i = (pct / 100) * (v.length - 1);
  return v[Math.floor(i)] + (v[Math.ceil(i)] - v[Math.floor(i)]) * (i - Math.floor(i));
}

function scaleRun(runners) {
  const testid = `e2e-scale-${runners}r-${Date.now()}`;
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { PROFILE: 'smoke', VUS: String(VUS), DURATION, THINK, MINIFOLIO_PROFILE: 'fast', TESTID: testid, RUNNERS: String(runners) },
    timeoutMs: 240_000,
  });
  const out = r.stdout + r.stderr;
  const summary = JSON.parse(readFileSync(join(repo, 'results', testid, 'summary.json'), 'utf8'));
  const runnerSummaries = [];
  for (let i = 1; runners > 1 && i <= runners; i++) runnerSummaries.push(JSON.parse(readFileSync(join(repo, 'results', testid, 'runners', String(i), 'summary.json'), 'utf8')));
  // The database after the run: every loan closed and every item back (teardown's work).
  const open = Number(sql(`select count(*) from ${tenant}_mod_circulation_storage.loan where lower(jsonb->'status'->>'name') = 'open'`));
  const out_ = Number(sql(`select count(*) from ${tenant}_mod_inventory_storage.item where jsonb->'status'->>'name' = 'Checked out'`));
  return { ...r, out, testid, summary, runnerSummaries, openLoans: open, checkedOut: out_ };
}

async function count(measurement, where) {
  const s = await influxQuery(`SELECT count("value") FROM "${measurement}" WHERE ${where}`);
  return s.length ? s[0].values[0][1] : 0;
}

function verdict(testid, args = []) {
  return run('node', [join(repo, 'tools', 'folio-perf.mjs'), 'verdict', testid, '--influx', env('FP_INFLUX_URL'), ...args], { timeoutMs: 60_000 });
}

const runs = {};
before(() => {
  const r = run(bin('minifolio'), ['seed', '--force', '--quiet', '--items', '3000', '--users', '200', '--loans', '100'], {
    env: { MINIFOLIO_DB: env('FP_PG_DSN') },
    timeoutMs: 300_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

for (const n of [1, 2, 4]) {
  test(`${n} runner${n > 1 ? 's' : ''} with ${VUS} VUs in all: exit 0, no failed transaction, no 422, nothing left checked out`, async () => {
    const r = scaleRun(n);
    runs[n] = r;
    assert.equal(r.status, 0, r.out);
    if (n > 1) {
      for (let i = 1; i <= n; i++) {
        assert.match(r.out, new RegExp(`runner ${i} of ${n}: execution segment \\S+`));
        // k6's own word, from setup: the segment reached the script, which took its part of the data
        // (without it every runner would slice the whole pools and still not collide, by idInTest).
        const log = readFileSync(join(repo, 'results', r.testid, 'runners', String(i), 'k6.log'), 'utf8');
        assert.match(log, /test data \(execution segment \S+: this runner's part of the data\)/, `runner ${i}'s k6.log`);
      }
      assert.match(r.out, /verdict over all \d+ runners' samples/);
    }
    const id = `"testid" = '${r.testid}'`;
    const tx = await count('transaction_duration', id);
    r.transactions = tx;
    assert.ok(tx > 0);
    assert.equal(await count('transaction_failed', `${id} AND "value" = 1`), 0, 'no failed transaction');
    assert.equal(await count('http_reqs', `${id} AND "status" = '422'`), 0, 'no 422: no runner touched another runner\'s item');
    assert.equal(r.openLoans, 0, 'teardown closed every loan');
    assert.equal(r.checkedOut, 0, 'every item checked back in');
    // Each runner tagged its samples instance=<i> and ran its share of the VUs.
    const per = await influxQuery(`SELECT count("value") FROM "transaction_duration" WHERE ${id} GROUP BY "instance"`);
    const instances = per.map((s) => s.tags.instance).sort();
    assert.deepEqual(instances, n === 1 ? [''] : Array.from({ length: n }, (_, i) => String(i + 1)));
    console.log(`${n} runner(s): ${tx} transactions (${per.map((s) => `instance ${s.tags.instance || '-'}: ${s.values[0][1]}`).join(', ')})`);
  });
}

// Runs on this shared machine vary by about 10 % from one to the next, so the bound is wide: it
// catches a runner that did not run or ran the whole plan (ratios near 1/N or N), not small drift.
test('the same total VUs give about the same work on 1, 2 and 4 runners (transactions within 25 %)', () => {
  const one = runs[1].transactions;
  for (const n of [2, 4]) {
    const ratio = runs[n].transactions / one;
    console.log(`transactions: ${n} runners / 1 runner = ${runs[n].transactions} / ${one} = ${ratio.toFixed(3)}`);
    assert.ok(ratio > 0.75 && ratio < 1.25, `${n} runners did ${runs[n].transactions} transactions, 1 runner ${one}`);
  }
});

test("the aggregated p95 is k6's percentile over every runner's samples, not the mean of the runners' p95s", async () => {
  const r = runs[2];
  const key = 'transaction_duration{transaction:check-out}';
  const v = verdict(r.testid);
  assert.equal(v.status, 0, v.stdout + v.stderr);
  const row = v.stdout.split('\n').find((l) => l.includes(key) && l.includes('p(95)'));
  const aggregated = Number(row.trim().split(/\s+/)[4]);
  // Every raw sample of the testid, from InfluxDB, through k6's own percentile formula.
  const raw = await influxQuery(`SELECT "value" FROM "transaction_duration" WHERE "testid" = '${r.testid}' AND "transaction" = 'check-out'`);
  const values = raw[0].values.map((x) => x[1]);
  const exact = k6P(values, 95);
  const nearest = (await influxQuery(`SELECT percentile("value", 95) FROM "transaction_duration" WHERE "testid" = '${r.testid}' AND "transaction" = 'check-out'`))[0].values[0][1];
  // Each runner's own k6 p95 (its summary.json), and the same figure judged per instance.
  const own = r.runnerSummaries.map((s) => s.k6.metrics[key].values['p(95)']);
  const mean = own.reduce((a, b) => a + b, 0) / own.length;
  console.log(`check-out p95 over ${values.length} samples of 2 runners: verdict ${aggregated}, k6's formula over the raw samples ${exact.toFixed(3)}, ` +
    `InfluxDB percentile() (nearest rank) ${nearest}; runners' own p95 ${own.map((x) => x.toFixed(3)).join(' and ')}, their mean ${mean.toFixed(3)}`);
  // The table prints one decimal above 10 ms.
  assert.ok(Math.abs(aggregated - exact) <= 0.05 + 1e-9, `verdict ${aggregated} vs ${exact}`);
  assert.ok(Math.abs(exact - mean) > 1e-6, 'the mean of per-runner percentiles is another number');
  assert.ok(Math.abs(r.summary.tables.responseTimes[0]['check-out'].p95 * 1000 - exact) < 1e-6, "the merged summary's table holds the union's p95");
  assert.equal(r.summary.tables.responseTimes[0]['check-out'].count, values.length);
  for (let i = 1; i <= 2; i++) {
    const vi = verdict(r.testid, ['--instance', String(i)]);
    const line = vi.stdout.split('\n').find((l) => l.includes(key) && l.includes('p(95)'));
    const alone = Number(line.trim().split(/\s+/)[4]);
    assert.ok(Math.abs(alone - own[i - 1]) <= 0.05 + 1e-9, `runner ${i}: verdict --instance ${alone}, k6's own ${own[i - 1]}`);
  }
});

test("the report of a 2-runner run (from the merged summary.json) counts every runner's transactions", async () => {
  const r = runs[2];
  const rep = run('node', [join(repo, 'tools', 'folio-perf.mjs'), 'report', r.testid, '--influx', env('FP_INFLUX_URL')], { timeoutMs: 120_000 });
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  const md = readFileSync(join(repo, 'results', r.testid, 'report.md'), 'utf8');
  const t = mdTable(md, 'Response times');
  const col = (name) => t.head.indexOf(name);
  const id = `"testid" = '${r.testid}'`;
  for (const tx of ['check-in', 'check-out']) {
    const all = await count('transaction_duration', `${id} AND "transaction" = '${tx}'`);
    assert.equal(Number(t.rows.find((x) => x[col('Transaction')] === tx)[col('n')]), all, `${tx}: the report's n is every runner's`);
  }
});

// Samples written by the test: two runners' check-out times chosen so that k6's interpolated p95 of
// each runner stays under the budget while the union's does not (a sparse tail: each runner has
// few slow transactions, the union has them at the 95th rank), and the other way round.
async function writeRun(testid, perInstance) {
  const lines = [];
  let t = BigInt(Date.now()) * 1000000n; // ns: beyond a double's exact integers
  for (const [instance, values] of Object.entries(perInstance)) {
    lines.push(`http_reqs,testid=${testid},workflow=cico,instance=${instance},name=GET\\ /x value=1 ${t++}`);
    for (const v of values) lines.push(`transaction_duration,testid=${testid},workflow=cico,instance=${instance},transaction=check-out value=${v} ${t++}`);
  }
  await influxWrite(env('FP_INFLUX_URL'), 'k6', lines);
}
const times = (n, v) => Array(n).fill(v);

test('a budget failing over the union exits 99 while each runner alone passes; and the other way round exits 0', async () => {
  const file = join(tmp, 'thresholds.json');
  writeFileSync(file, JSON.stringify({ workflows: { cico: { transactions: { 'check-out': { 'p(95)': 60, why: 'test' } } } } }));
  const th = ['--thresholds', file];

  const a = `e2e-scale-union-fails-${Date.now()}`;
  await writeRun(a, { 1: [...times(10, 10), 100], 2: [...times(28, 10), 100, 100] });
  for (const i of ['1', '2']) {
    const alone = verdict(a, [...th, '--instance', i]);
    assert.equal(alone.status, 0, `runner ${i} alone passes: ${alone.stdout}${alone.stderr}`);
  }
  const union = verdict(a, th);
  assert.equal(union.status, 99, union.stdout + union.stderr);
  assert.match(union.stdout, /p\(95\)\s+60\s+100\s+.*failed/);

  const b = `e2e-scale-union-passes-${Date.now()}`;
  await writeRun(b, { 1: [10, 100], 2: times(100, 10) });
  assert.equal(verdict(b, [...th, '--instance', '1']).status, 99, 'runner 1 alone fails (p95 95.5)');
  assert.equal(verdict(b, [...th, '--instance', '2']).status, 0);
  const u = verdict(b, th);
  assert.equal(u.status, 0, u.stdout + u.stderr);
  console.log(`constructed: union fails (${union.stdout.split('\n').find((l) => l.includes('check-out')).trim()}); union passes (${u.stdout.split('\n').find((l) => l.includes('check-out')).trim()})`);
});

// A RUNNERS=2 run of 4 VUs through folio-perf; act(run) once both runners have finished
// transactions; resolves { code, out, testid } (bounded: the group is killed past 150 s).
async function runnersRun(name, duration, act) {
  const testid = `e2e-scale-${name}-${Date.now()}`;
  const r = startFolioPerf({ PROFILE: 'smoke', VUS: '4', DURATION: duration, THINK, TESTID: testid, RUNNERS: '2', TEARDOWN_SETTLE: '5s' });
  try {
    await waitFor(async () => (await influxQuery(`SELECT count("value") FROM "transaction_duration" WHERE "testid" = '${testid}' GROUP BY "instance"`)).length === 2, {
      seconds: 90,
      what: 'transactions of both runners',
    });
    act(r);
    return { ...(await r.done(150)), testid };
  } finally {
    r.killGroup();
  }
}

test('Ctrl-C stops every runner: each checks in its own loans, the run exits 105 without a verdict', async () => {
  // Interrupt once both runners have finished transactions: the signal reaches folio-perf as
  // Ctrl-C would (it passes it on to every runner).
  const { code, out, testid } = await runnersRun('sigint', '60s', (r) => r.signal('SIGINT'));
  assert.equal(code, 105, out);
  assert.match(out, /runner 1: k6 exited with 105/);
  assert.match(out, /runner 2: k6 exited with 105/);
  assert.match(out, /no verdict: a runner did not finish its run \(exit 105\)/);
  for (const i of [1, 2]) assert.match(readFileSync(join(repo, 'results', testid, 'runners', String(i), 'k6.log'), 'utf8'), /teardown checked in \d+ items/);
  assert.equal(Number(sql(`select count(*) from ${tenant}_mod_circulation_storage.loan where lower(jsonb->'status'->>'name') = 'open'`)), 0, 'every runner checked in its loans');
  assert.equal(Number(sql(`select count(*) from ${tenant}_mod_inventory_storage.item where jsonb->'status'->>'name' = 'Checked out'`)), 0);
});

// A runner that dies while the others load the target (exit other than 0/99: a crash, an OOM kill)
// has already failed the run: the others are stopped as by Ctrl-C (each checks in its own loans)
// rather than running the whole plan, and the run exits with the failed runner's code.
test('a runner that fails early stops the others: they check in and exit 105, the run exits with the failure', async () => {
  assert.equal(run(bin('minifolio'), ['reset'], { env: { MINIFOLIO_DB: env('FP_PG_DSN') } }).status, 0);
  const { code, out, testid } = await runnersRun('crash', '120s', (r) => {
    // Runner 1's k6: started by folio-perf, running execution segment 0:1/2.
    const started = descendants(r.child.pid);
    const runner1 = started.filter((p) => /\bk6 run\b.*--execution-segment 0:1\/2\b/.test(cmdline(p)));
    assert.equal(runner1.length, 1, started.map(cmdline).join('\n'));
    process.kill(runner1[0], 'SIGKILL');
  });
  assert.equal(code, 137, out);
  assert.match(out, /runner 1: k6 exited with 137/);
  assert.match(out, /runner 1 failed \(exit 137\): stopping the other 1 \(each checks in its own loans first\)/);
  assert.match(out, /runner 2: k6 exited with 105/, 'runner 2 was stopped, not left to run its plan');
  assert.match(out, /no verdict: a runner did not finish its run \(exit 137\)/);
  assert.match(readFileSync(join(repo, 'results', testid, 'runners', '2', 'k6.log'), 'utf8'), /the load was cut short[\s\S]*teardown checked in \d+ items/);
  // Runner 1 died without its teardown: what it left is named (exactly what the database holds).
  const left = Number(sql(`select count(*) from ${tenant}_mod_inventory_storage.item i where i.jsonb->'status'->>'name' = 'Checked out'
    or exists (select 1 from ${tenant}_mod_circulation_storage.loan l where l.jsonb->>'itemId' = i.id::text and lower(l.jsonb->'status'->>'name') = 'open')`));
  const named = /the run left (\d+) items checked out: /.exec(out);
  assert.equal(named ? Number(named[1]) : 0, left, out);
  assert.equal(run(bin('minifolio'), ['reset'], { env: { MINIFOLIO_DB: env('FP_PG_DSN') } }).status, 0);
});

// Two k6-operator runner pods, as far as one machine can be one: the files laid out as the TestRun's
// projected volume maps them (tools/k8s-base.mjs, which writes k8s/base/), outside the checkout, the
// TestRun's own args with Kubernetes' $(VAR) expansion, the operator's segment flags and tags
// (grafana/k6-operator : pkg/resources/jobs/runner.go), and nothing else in the environment.
test('the cico TestRun as two runner pods: its file layout, args and settings run, runners never collide, one verdict', async () => {
  // The pre-test state that make run restores (no open loan), so that what is open afterwards is the pods'.
  assert.equal(run(bin('minifolio'), ['reset'], { env: { MINIFOLIO_DB: env('FP_PG_DSN') } }).status, 0);
  const pod = join(tmp, 'pod');
  for (const g of await baseGroups()) {
    mkdirSync(join(pod, 'folio-perf', g.dir), { recursive: true });
    for (const f of g.files) copyFileSync(join(repo, g.dir, f), join(pod, 'folio-perf', g.dir, f));
  }
  copyFileSync(join(repo, 'thresholds.json'), join(pod, 'folio-perf', 'thresholds.json'));
  mkdirSync(join(pod, 'folio-perf', 'env'));
  writeFileSync(join(pod, 'folio-perf', 'env', 'target.json'), JSON.stringify({
    folio: { url: `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`, tenant, user: 'folio_admin' },
    db: { host: '127.0.0.1', port: Number(env('FP_PG_PORT')), name: 'folio', user: 'folio', sslmode: 'disable' },
    data: 'db',
    release: 'minifolio',
  }));
  const yaml = (await baseFiles())['testrun-cico.yaml'];
  const script = /localFile: \/folio-perf\/(\S+)/.exec(yaml)[1];
  const block = yaml.slice(yaml.indexOf('\n  args:\n'), yaml.indexOf('\n  runner:\n'));
  const args = [...block.matchAll(/^ {4}- (.+)$/gm)].map((m) => m[1]);
  const testid = `e2e-scale-pods-${Date.now()}`;
  const settings = { FOLIO_ENV: 'target', TARGET: 'k8s-sim', RELEASE: 'minifolio', TESTID: testid, PROFILE: 'smoke', VUS: String(VUS), DURATION: '15s', THINK, INFLUX_URL: env('FP_INFLUX_URL') };
  const pods = [1, 2].map((i) => {
    const e = { PATH: process.env.PATH, HOME: process.env.HOME, FP_LOCAL_ONLY: '1', K6_NO_USAGE_REPORT: 'true', K6_AUTO_EXTENSION_RESOLUTION: 'false', ...settings, POD_NAME: `folio-perf-cico-${i}-pod`, FOLIO_PASSWORD: 'admin', FOLIO_DB_PASSWORD: env('FOLIO_DB_PASSWORD') };
    const expanded = args.map((a) => a.replace(/\$\((\w+)\)/g, (_, v) => e[v]));
    const segment = [`--execution-segment=${i === 1 ? '0' : '1/2'}:${i === 1 ? '1/2' : '1'}`, '--execution-segment-sequence=0,1/2,1'];
    return runAsync(bin('k6'), ['run', ...segment, ...expanded, join(pod, 'folio-perf', script), '--tag', `instance_id=${i}`, '--tag', 'testrun_name=folio-perf-cico'], { env: e, cwd: pod, timeoutMs: 120_000 });
  });
  const done = await Promise.all(pods);
  done.forEach((r, i) => {
    assert.equal(r.status, 0, `pod ${i + 1}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr + r.stdout, /test data \(execution segment \S+: this runner's part of the data\)/);
    assert.match(r.stderr + r.stdout, /teardown checked in \d+ items/);
  });
  const tags = await influxQuery(`SHOW TAG VALUES FROM "transaction_duration" WITH KEY IN ("instance", "target", "workflow", "release") WHERE "testid" = '${testid}'`);
  const values = tags[0].values.map(([k, v]) => `${k}=${v}`).sort();
  assert.deepEqual(values, ['instance=folio-perf-cico-1-pod', 'instance=folio-perf-cico-2-pod', 'release=minifolio', 'target=k8s-sim', 'workflow=cico']);
  assert.equal(await count('http_reqs', `"testid" = '${testid}' AND "status" = '422'`), 0);
  const v = verdict(testid);
  assert.equal(v.status, 0, v.stdout + v.stderr);
  assert.equal(Number(sql(`select count(*) from ${tenant}_mod_circulation_storage.loan where lower(jsonb->'status'->>'name') = 'open'`)), 0, "each pod's teardown checked in its loans");
});

test('bad input: RUNNERS must be 1..16, and an unknown test id has no verdict', () => {
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], { env: { RUNNERS: '0' }, timeoutMs: 30_000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /RUNNERS '0' is not a number of k6 processes from 1 to 16; fix: use e\.g\. RUNNERS=2/);
  const v = verdict('e2e-scale-no-such-run');
  assert.equal(v.status, 1);
  assert.match(v.stderr, /no samples of test id e2e-scale-no-such-run/);
});
