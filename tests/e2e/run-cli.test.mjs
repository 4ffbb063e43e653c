// The run's command line on the real stack: `folio-perf run` passes k6's exit
// code on (99 for a failed threshold, where `make run` says 2), a run without a
// terminal prints a progress line per interval and where to watch it live, and
// a bad setting or a login FOLIO refuses stops before k6 with one line, no k6
// report and no results directory. FOLIO_URL points a run elsewhere without
// minifolio being restarted; a run there that does not end cleanly lists the
// open loans it left by barcode (never the restore SQL). A SIGTERM or SIGINT
// sent to folio-perf alone stops the run, and nothing it started outlives it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, env, run, bin, sql, waitFor, descendants, alive, cmdline, startFolioPerf } from './helpers.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'fp-run-cli-'));
const folioPerf = join(repo, 'tools', 'folio-perf.mjs');
const frontDoor = (vars, opts) => run(process.execPath, [folioPerf, 'run'], { env: vars, ...opts });
const tenant = 'fs09000000';
const loanTable = `${tenant}_mod_circulation_storage.loan`;
const itemTable = `${tenant}_mod_inventory_storage.item`;
const userTable = `${tenant}_mod_users.users`;
const lines = (text) => text.split('\n').filter(Boolean);
const reset = () => assert.equal(run(bin('minifolio'), ['reset'], { env: { MINIFOLIO_DB: env('FP_PG_DSN') } }).status, 0);

// Only what the run prints itself: the tests' stack is up already.
const base = { PROFILE: 'smoke', MINIFOLIO_PROFILE: 'fast', FP_SEARCH: '0' };
// folio-perf run in a process group of its own, as a terminal would start it.
const startFrontDoor = (vars) => startFolioPerf({ ...base, ...vars });

// k6's own report and summary of a run that never started.
const K6_REPORT = /Thresholds:|FAILED|Response times:|summary\.json/;

test('folio-perf run exits 99 when a threshold fails; without a terminal it prints progress lines and where to watch live', () => {
  const th = JSON.parse(readFileSync(join(repo, 'thresholds.json'), 'utf8'));
  th.workflows.cico.transactions['check-out']['p(95)'] = 0.001; // no check-out is that fast
  const thFile = join(tmp, 'thresholds.json');
  writeFileSync(thFile, JSON.stringify(th));
  const testid = `e2e-cli-99-${Date.now()}`;
  const r = run(process.execPath, [folioPerf, 'run', `TESTID=${testid}`, 'DURATION=20s', 'THINK=none', `THRESHOLDS=${thFile}`, 'PROGRESS_EVERY=4'], {
    env: base,
    timeoutMs: 300_000,
  });
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 99, out);
  assert.match(out, /thresholds failed: k6 exit code 99/);
  assert.match(out, new RegExp(`==> live: InfluxDB http://127\\.0\\.0\\.1:${env('FP_INFLUX_PORT')} database k6, testid ${testid}`));
  assert.match(out, new RegExp(`--profile native-grafana up -d grafana-native, then open http://localhost:\\d+/d/folio-cico\\?var-testid=${testid}`));
  // At the end, the link opens the run's own time range (epoch ms around it), not now-1h.
  const [, from, to] = out.match(new RegExp(`/d/folio-cico\\?var-testid=${testid}&from=(\\d+)&to=(\\d+)\\n`)) ?? [];
  assert.ok(Number(from) > 0 && Number(from) < Number(to), `no run-window link in:\n${out}`);
  const progress = out.split('\n').filter((l) => l.startsWith('==> progress: '));
  assert.ok(progress.length >= 2, `want a progress line per 4 s over a 20 s run:\n${out}`);
  assert.ok(progress.some((l) => /[1-9]\d* requests \(\d+ failed\) in the last 4 s/.test(l)), progress.join('\n'));
  assert.ok(existsSync(join(repo, 'results', testid, 'summary.json')));
  assert.match(out, new RegExp(`==> results: results/${testid}/summary\\.json`));
});

test('a bad setting stops before k6 with one line and exit 1, and no results directory', () => {
  const testid = `e2e-cli-bad-${Date.now()}`;
  const r = frontDoor({ ...base, TESTID: testid, FOLIO_TENANT: 'Not A Tenant' }, { timeoutMs: 120_000 });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /^folio-perf: .*FOLIO_TENANT.*"Not A Tenant" is not a FOLIO tenant id.*fix/);
  assert.doesNotMatch(r.stdout + r.stderr, K6_REPORT);
  assert.equal(existsSync(join(repo, 'results', testid)), false);
});

test('a tenant FOLIO does not know: one line, exit 108, no k6 report, no results directory', () => {
  const testid = `e2e-cli-tenant-${Date.now()}`;
  const r = frontDoor({ ...base, TESTID: testid, FOLIO_TENANT: 'nosuchtenant' }, { timeoutMs: 180_000 });
  assert.equal(r.status, 108, r.stdout + r.stderr);
  assert.deepEqual(r.stderr.trim().split('\n'), [`folio-perf: FOLIO rejected tenant "nosuchtenant" (400 No such Tenant nosuchtenant); fix: set FOLIO_TENANT / folio.tenant to an existing tenant`]);
  assert.doesNotMatch(r.stdout + r.stderr, K6_REPORT);
  assert.equal(existsSync(join(repo, 'results', testid)), false);
});

test('FOLIO_URL set: minifolio is left alone; a wrong password stops with one line, exit 108, no results directory', () => {
  const testid = `e2e-cli-pw-${Date.now()}`;
  const password = 'not-the-operator-password';
  const r = frontDoor({ ...base, TESTID: testid, FOLIO_URL: `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`, FOLIO_PASSWORD: password }, { timeoutMs: 60_000 });
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 108, out);
  assert.match(r.stdout, /minifolio is not started, seeded or reset/);
  assert.doesNotMatch(out, /==> minifolio: /);
  assert.deepEqual(r.stderr.trim().split('\n'), ['folio-perf: FOLIO rejected the login of user "folio_admin" (422); fix: check FOLIO_USER and FOLIO_PASSWORD']);
  assert.doesNotMatch(out, K6_REPORT);
  assert.ok(!out.includes(password), 'the password never reaches the output');
  assert.equal(existsSync(join(repo, 'results', testid)), false);
});

// A signal sent to folio-perf alone (not its process group: a service manager's SIGTERM, a kill
// from another shell) stops the load through k6's own interrupt, so teardown still checks in what
// the run checked out, and every process folio-perf started has ended when it exits.
for (const sig of ['SIGTERM', 'SIGINT']) {
  test(`${sig} to folio-perf alone, output not a terminal: k6 stops and checks in, no process outlives folio-perf`, async () => {
    reset();
    const testid = `e2e-cli-${sig.toLowerCase()}-${Date.now()}`;
    const r = startFrontDoor({ TESTID: testid, DURATION: '90s', TEARDOWN_SETTLE: '5s', PROGRESS_EVERY: '2' });
    await waitFor(() => /==> progress: .* [1-9]\d* requests/.test(r.output()), { seconds: 120, what: 'the load and its progress lines' });
    const started = descendants(r.child.pid);
    assert.ok(started.some((p) => /\bk6 run\b/.test(cmdline(p))), `k6 runs under folio-perf: ${started.map(cmdline).join('; ')}`);
    process.kill(r.child.pid, sig);
    const { code, out } = await r.done(120);
    assert.equal(code, 105, `k6 was interrupted and folio-perf passed its code on:\n${out}`);
    assert.match(out, /teardown: checking in what the run left checked out; the load was cut short/);
    assert.match(out, /teardown checked in \d+ items/);
    const left = started.filter(alive);
    assert.deepEqual(left.map(cmdline), [], 'no process started by folio-perf is left');
    // The progress lines stopped with the run: none is printed after folio-perf said its last word.
    assert.ok(out.trimEnd().endsWith('==> k6 exited with 105'), out.slice(-400));
    assert.equal(Number(sql(`select count(*) from ${loanTable} where lower(jsonb->'status'->>'name') = 'open'`)), 0);
  });
}

// SIGKILL cannot be caught: the kernel then sends k6 SIGTERM (its parent died), so k6 still stops the
// load and checks in on its own rather than running its plan out as an orphan.
test('SIGKILL of folio-perf: k6 stops by itself and checks in what the run checked out', async () => {
  reset();
  const testid = `e2e-cli-sigkill-${Date.now()}`;
  const r = startFrontDoor({ TESTID: testid, DURATION: '300s', TEARDOWN_SETTLE: '5s', PROGRESS_EVERY: '2' });
  await waitFor(() => /==> progress: .* [1-9]\d* requests/.test(r.output()), { seconds: 120, what: 'the load and its progress lines' });
  const k6 = descendants(r.child.pid).filter((p) => /\bk6 run\b/.test(cmdline(p)));
  assert.equal(k6.length, 1, 'one k6 under folio-perf');
  process.kill(r.child.pid, 'SIGKILL');
  // Well inside its 300 s plan: k6 was stopped, it did not run out.
  await waitFor(() => !alive(k6[0]), { seconds: 120, what: 'k6 to stop after folio-perf was killed' });
  const { out } = await r.done(30);
  assert.match(out, /teardown: checking in what the run left checked out; the load was cut short/);
  assert.equal(Number(sql(`select count(*) from ${loanTable} where lower(jsonb->'status'->>'name') = 'open'`)), 0, "k6's teardown checked in the run's loans");
});

// On a FOLIO that is not this stack's (FOLIO_URL set; here the stack's minifolio stands in for
// it), a k6 that dies mid-run (exit not 0/99) leaves loans open: the run lists them by barcode, the
// same set FOLIO's database holds, and advises checking in those, never the restore SQL. Only this
// run's: a loan the operator made before the run stays unlisted.
test('your FOLIO: a crashed k6 leaves open loans; the run lists them by barcode and never advises the restore SQL', async () => {
  reset();
  // An open loan from before the run, made by the same operator: not the run's.
  const before = sql(`select jsonb->>'barcode' from ${itemTable} where jsonb->'status'->>'name' = 'Available' order by jsonb->>'barcode' desc limit 1`);
  const admin = sql(`select id from ${userTable} where jsonb->>'username' = 'folio_admin'`);
  const patron = sql(`select id from ${userTable} where jsonb->>'username' <> 'folio_admin' and jsonb->>'active' = 'true' order by id limit 1`);
  sql(`insert into ${loanTable} (id, jsonb) select gen_random_uuid(), jsonb_build_object('itemId', id::text, 'userId', '${patron}', 'status', jsonb_build_object('name', 'Open'),
    'action', 'checkedout', 'loanDate', '2020-01-01T00:00:00.000Z', 'metadata', jsonb_build_object('createdByUserId', '${admin}')) from ${itemTable} where jsonb->>'barcode' = '${before}'`);
  const testid = `e2e-cli-crash-${Date.now()}`;
  const r = startFrontDoor({
    TESTID: testid, DURATION: '90s', VUS: '4', FOLIO_URL: `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`, FOLIO_PASSWORD: 'admin', FOLIO_DB_PORT: env('FP_PG_PORT'),
  });
  try {
    await waitFor(() => Number(sql(`select count(*) from ${loanTable} where lower(jsonb->'status'->>'name') = 'open'`)) > 3, { seconds: 120, what: 'open loans of the run' });
    const k6 = descendants(r.child.pid).filter((p) => /\bk6 run\b/.test(cmdline(p)));
    assert.equal(k6.length, 1, 'one k6 under folio-perf');
    process.kill(k6[0], 'SIGKILL'); // a crash: no teardown
    const { code, out } = await r.done(120);
    assert.equal(code, 137, out);
    const open = lines(sql(`select i.jsonb->>'barcode' from ${loanTable} l join ${itemTable} i on i.id::text = l.jsonb->>'itemId'
      where lower(l.jsonb->'status'->>'name') = 'open' and i.jsonb->>'barcode' <> '${before}' order by 1`));
    assert.ok(open.length > 0, `the crash left loans open:\n${out}`);
    const m = /==> the run did not end cleanly \(exit 137\) and left (\d+) open loans, made by its operator since \S+; item barcodes:\n((?: {4}(?!fix:)\S.*\n)+)/.exec(out);
    assert.ok(m, `the run lists what it left:\n${out}`);
    assert.equal(Number(m[1]), open.length);
    assert.deepEqual(m[2].trim().split(/\s+/), open);
    assert.ok(!m[2].includes(before), 'the loan from before the run is not listed');
    assert.match(out, /fix: check in exactly these items .*never a restore SQL on this FOLIO/);
    assert.doesNotMatch(out, /restore\.sql|TRUNCATE|minifolio reset|folio-perf reset/i);
    assert.doesNotMatch(out, /==> minifolio: /, 'minifolio is left alone');
  } finally {
    reset();
  }
});
