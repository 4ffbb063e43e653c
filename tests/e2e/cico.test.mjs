// The check-in/check-out run end to end on the real stack: k6 → minifolio →
// PostgreSQL, samples into InfluxDB, the regression gate, token refresh, bad
// input stopping before the load, and a clean state after SIGINT. Every run goes
// through folio-perf run, the same path as `make run`, on the tests' own stack.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, env, bin, influxQuery, waitFor, run, sql, childEnv, valuesInRun, cellsOfRun, folioPerfRun } from './helpers.mjs';
import { poolQueries } from '../../lib/cico/data.js';

const tenant = 'fs09000000';
const loanTable = `${tenant}_mod_circulation_storage.loan`;
const itemTable = `${tenant}_mod_inventory_storage.item`;
const tmp = mkdtempSync(join(tmpdir(), 'fp-cico-'));
const minifolioDB = () => env('FP_PG_DSN');

const openLoans = () => Number(sql(`select count(*) from ${loanTable} where lower(jsonb->'status'->>'name') = 'open'`));
const allLoans = () => Number(sql(`select count(*) from ${loanTable}`));

// cicoRun runs folio-perf run (minifolio restart, reset, k6) and returns its
// output, exit code and the run's summary document.
const cicoRun = (name, vars, { timeoutMs = 240_000 } = {}) =>
  folioPerfRun(name, { PROFILE: 'smoke', DURATION: '30s', MINIFOLIO_PROFILE: 'fast', ...vars }, timeoutMs);

// k6Direct runs the CICO script without folio-perf run, against the already running
// minifolio, for the bad-input cases that must stop before any load.
function k6Direct(vars) {
  return run(bin('k6'), ['run', '--quiet', join(repo, 'scripts', 'check-in-check-out.js')], {
    env: {
      FOLIO_ENV: 'local', PROFILE: 'smoke', DURATION: '10s', FOLIO_PASSWORD: 'admin',
      FOLIO_URL: `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`, FOLIO_DB_PORT: env('FP_PG_PORT'),
      K6_NO_USAGE_REPORT: 'true', ...vars,
    },
    timeoutMs: 60_000,
  });
}

const metric = (s, key) => s.k6.metrics[key]?.values;

before(() => {
  // A known data set: users with a long patron-block history so that the
  // Juniper mechanism (blocks rebuilt from every event) has real work to do.
  const r = run(bin('minifolio'), ['seed', '--force', '--quiet', '--items', '3000', '--users', '40', '--loans', '100', '--events-per-user', '10000'], {
    env: { MINIFOLIO_DB: minifolioDB() },
    timeoutMs: 300_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

let smoke;
test('smoke against minifolio fast: all checks pass, no failed transaction, tagged samples in InfluxDB', async () => {
  smoke = cicoRun('smoke', {});
  assert.equal(smoke.status, 0, smoke.out);
  // The dashboards' e2e suite runs every panel query against this run.
  writeFileSync(join(env('FP_STACK_DIR'), 'last-cico-testid'), smoke.testid);
  const s = smoke.summary;
  assert.ok(s, 'summary.json written');
  const checks = metric(s, 'checks');
  assert.ok(checks.passes > 0 && checks.fails === 0, `checks: ${JSON.stringify(checks)}`);
  for (const t of ['check-in', 'check-out']) {
    assert.equal(metric(s, `transaction_failed{transaction:${t}}`).rate, 0, `${t} failed transactions`);
    assert.ok(metric(s, `transaction_duration{transaction:${t}}`).count > 0, `${t} recorded`);
  }

  const [byTx] = [await influxQuery(
    `SELECT count("value") FROM "transaction_duration" WHERE "testid" = '${smoke.testid}' GROUP BY "transaction", "workflow", "release"`,
  )];
  const txTags = byTx.map((x) => x.tags);
  for (const t of ['check-in', 'check-out']) {
    assert.ok(txTags.some((g) => g.transaction === t && g.workflow === 'cico' && g.release === 'fast'), `${t} in InfluxDB with workflow/release: ${JSON.stringify(txTags)}`);
  }
  const names = (await influxQuery(`SHOW TAG VALUES FROM "http_req_duration" WITH KEY = "name" WHERE "testid" = '${smoke.testid}'`))[0].values.map((v) => v[1]);
  assert.ok(names.includes('POST /circulation/check-out-by-barcode'));
  assert.ok(names.includes('GET /automated-patron-blocks/{id}'));
  for (const n of names) assert.doesNotMatch(n, /[0-9a-f]{8}-[0-9a-f]{4}-|\?|==/, `name "${n}" carries an id or a query`);
  assert.ok(existsReport(smoke.testid), 'k6 web-dashboard HTML report exported');
  // A run that ended on its own: teardown takes 2 s, so no "second Ctrl-C" hint and no settle time.
  assert.match(smoke.out, /teardown: checking in what the run left checked out\./);
  assert.doesNotMatch(smoke.out, /second Ctrl-C|cut short/);
});

function existsReport(testid) {
  try {
    return readFileSync(join(repo, 'results', testid, 'k6-report.html'), 'utf8').includes('<html');
  } catch {
    return false;
  }
}

test('scripts/smoke.js logs in and reads the service points; a wrong password stops it with the cause', () => {
  const smokeRun = (password) =>
    run(bin('k6'), ['run', '--quiet', '--address=', join(repo, 'scripts', 'smoke.js')], {
      env: { FOLIO_ENV: 'local', FOLIO_PASSWORD: password, FOLIO_URL: `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`, K6_NO_USAGE_REPORT: 'true' },
      timeoutMs: 60_000,
    });
  const ok = smokeRun('admin');
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout + ok.stderr, /logged in \(login-with-expiry\), [1-9]\d* service points/);
  const bad = smokeRun('wrong');
  assert.notEqual(bad.status, 0, 'a wrong password fails the smoke test');
  assert.match(bad.stdout + bad.stderr, /rejected the login of user \\?"folio_admin\\?".*fix: check FOLIO_USER and FOLIO_PASSWORD/);
});

test('no patron or item barcode of the run is in InfluxDB, in any tag or field of any of its points', async () => {
  assert.ok(smoke?.summary, 'needs the smoke run');
  // run.sh reset the circulation tables right before the run: every loan is the run's.
  const barcodes = sql(`select (i.jsonb->>'barcode') || ' ' || (u.jsonb->>'barcode') from ${loanTable} l
    join ${itemTable} i on i.id::text = l.jsonb->>'itemId' join ${tenant}_mod_users.users u on u.id::text = l.jsonb->>'userId'`).split(/\s+/).filter(Boolean);
  assert.ok(barcodes.length >= 2, `the run checked out items: ${barcodes.length / 2} loans`);
  const hits = await valuesInRun(smoke.testid, [...new Set(barcodes)]);
  assert.deepEqual(hits.slice(0, 10), [], `${hits.length} values hold a barcode of the run`);
  const urls = [...(await cellsOfRun(smoke.testid))].filter(([cell]) => /[?&][A-Za-z]+=/.test(cell));
  assert.deepEqual(urls.slice(0, 10), [], 'no value holds a query string');
  // k6's url tag (its URL, query and all, unless a name is set) is not recorded at all: the output
  // would write it as a field.
  assert.deepEqual(await influxQuery(`SELECT count("url") FROM "http_req_duration" WHERE "testid" = '${smoke.testid}'`), [], 'no url field');
  // The guard's own check: a barcode the run used does show when written (the query above sees it).
  const probe = `${smoke.testid}-probe`;
  await fetch(`${env('FP_INFLUX_URL')}/write?db=k6`, { method: 'POST', body: `fp_probe,testid=${probe} url="/users?query=barcode==${barcodes[1]}" 1` });
  assert.equal((await valuesInRun(probe, [barcodes[1]])).length, 1);
});

test('a request without a templated name is refused before it leaves k6 (its URL would be its tags)', () => {
  const r = run(bin('k6'), ['run', '--quiet', '--address=', join(repo, 'tests', 'e2e', 'k6', 'unnamed-request.js')], { timeoutMs: 60_000 });
  const out = r.stdout + r.stderr;
  assert.match(out, /a GET request without a templated name tag \(got none\); fix: send it through lib\/k6\/folio\.js's client/);
  assert.doesNotMatch(out, /SENT/);
  assert.doesNotMatch(out, /usr0000042/, 'the message names no barcode');
});

test('the loans the run created equal the successful check-outs k6 counted, and none is left open', () => {
  assert.ok(smoke?.summary, 'needs the smoke run');
  const checkouts = metric(smoke.summary, 'transaction_duration{transaction:check-out}').count;
  // folio-perf run reset the circulation tables right before the run: every loan row is the run's.
  assert.equal(allLoans(), checkouts);
  assert.equal(openLoans(), 0, 'teardown checked in what the run checked out');
});

test('regression gate: a Juniper-like candidate exits 99 naming check-out p(95); the same candidate on fast exits 0', () => {
  // One baseline run against one candidate on a shared machine: the machine's own speed moves both
  // transactions together (CI once saw the same fast candidate at twice the baseline's p95, check-in
  // as much as check-out, under a load average of 15). So the gate is tested with a tolerance of
  // that drift (2x + 100 ms), which the Juniper-like mechanism exceeds many times over (its check-out
  // p95 was 25x the baseline's in that run); the mechanism is the same as with thresholds.json's own
  // numbers.
  const th = JSON.parse(readFileSync(join(repo, 'thresholds.json'), 'utf8'));
  th.workflows.cico.regression.transactions = { stats: ['p(95)'], tolerance: 1, slackMs: 100 };
  th.workflows.cico.regression.apis.tolerance = 3;
  th.workflows.cico.regression.apis.slackMs = 200;
  const thFile = join(tmp, 'thresholds.json');
  writeFileSync(thFile, JSON.stringify(th));

  const base = cicoRun('baseline', { THRESHOLDS: thFile });
  assert.equal(base.status, 0, base.out);
  const baseFile = join(tmp, 'baseline-fast.json');
  const b = run('node', [join(repo, 'tools', 'folio-perf.mjs'), 'baseline', join(repo, 'results', base.testid, 'summary.json'), '--out', baseFile]);
  assert.equal(b.status, 0, b.stderr);

  const juniper = cicoRun('juniper', { MINIFOLIO_PROFILE: 'juniper-patron-blocks', BASELINE: baseFile, THRESHOLDS: thFile });
  assert.equal(juniper.status, 99, juniper.out);
  assert.match(juniper.out, /transaction_duration\{transaction:check-out\}/);
  assert.match(juniper.out, /p\(95\)/);

  const same = cicoRun('candidate-fast', { BASELINE: baseFile, THRESHOLDS: thFile });
  assert.equal(same.status, 0, same.out);
});

test('a 20-second token over a 90-second run: refreshed in time, zero 401s', async () => {
  const r = cicoRun('token', { TOKEN_TTL: '20s', DURATION: '90s' });
  assert.equal(r.status, 0, r.out);
  const [s401] = await influxQuery(`SELECT count("value") FROM "http_reqs" WHERE "testid" = '${r.testid}' AND "status" = '401'`);
  assert.equal(s401, undefined, `401 responses: ${JSON.stringify(s401?.values)}`);
  const [all] = await influxQuery(`SELECT count("value") FROM "http_reqs" WHERE "testid" = '${r.testid}'`);
  assert.ok(all.values[0][1] > 100, 'the run made requests for the whole 90 s');
});

test('bad input stops before the load with a one-line cause, and checks nothing out', async (t) => {
  // minifolio is up (fast) from the previous runs; reset it to a known state.
  assert.equal(run(bin('minifolio'), ['reset'], { env: { MINIFOLIO_DB: minifolioDB() } }).status, 0);
  const badThresholds = join(tmp, 'bad-thresholds.json');
  writeFileSync(badThresholds, '{"workflows": {"cico": ');
  const searchBaseline = join(tmp, 'search-baseline.json');
  writeFileSync(searchBaseline, JSON.stringify({ format: 'folio-perf-baseline/1', workflow: 'search', release: 'x', testid: 'x', transactions: { keyword: { 'p(95)': 1 } }, apis: {} }));

  const looseSummaries = () => readdirSync(repo).filter((f) => /^results-.*-summary\.json$/.test(f));
  const looseBefore = looseSummaries();
  const cases = [
    ['wrong password', { FOLIO_PASSWORD: 'not-the-password' }, /password|credentials|login/i],
    ['unknown tenant', { FOLIO_TENANT: 'nosuchtenant' }, /nosuchtenant/],
    ['unreachable target', { FOLIO_URL: 'http://127.0.0.1:1' }, /127\.0\.0\.1:1/],
    ['malformed thresholds.json', { THRESHOLDS: badThresholds }, /bad-thresholds\.json/],
    ['baseline of another workflow', { BASELINE: searchBaseline }, /workflow \\?"search\\?"/],
  ];
  for (const [name, vars, cause] of cases) {
    await t.test(name, () => {
      const before = allLoans();
      const r = k6Direct(vars);
      const out = r.stdout + r.stderr;
      assert.notEqual(r.status, 0, out);
      // k6 logs the script's fatal error as one level=error line.
      const lines = out.split('\n').filter((l) => l.includes('folio-perf:') && /level=error|^folio-perf:/.test(l));
      assert.equal(lines.length, 1, `one folio-perf error line in ${out}`);
      assert.match(lines[0], cause);
      assert.match(lines[0], /fix/i, 'the line says how to fix it');
      assert.doesNotMatch(out, /\n\s+at .*\(.*:\d+:\d+\)/, 'no JavaScript stack trace');
      assert.doesNotMatch(out, /not-the-password|fp-test-S3cret-pw/, 'no secret in the output');
      assert.equal(allLoans(), before, 'nothing checked out');
      // A run stopped before its load leaves no summary in the working directory (k6 runs here
      // without results/<testid>/, as a plain `k6 run`).
      assert.deepEqual(looseSummaries().filter((f) => !looseBefore.includes(f)), [], 'no loose summary left');
    });
  }

  await t.test('no available items', () => {
    sql(`update ${itemTable} set jsonb = jsonb_set(jsonb, '{status,name}', '"Missing"')`);
    try {
      const before = allLoans();
      const r = k6Direct({});
      const out = r.stdout + r.stderr;
      assert.notEqual(r.status, 0, out);
      assert.match(out, /level=error.*folio-perf:.*no available item.*fix:/i);
      assert.equal(allLoans(), before);
    } finally {
      assert.equal(run(bin('minifolio'), ['reset'], { env: { MINIFOLIO_DB: minifolioDB() } }).status, 0);
    }
  });
});

// TEARDOWN_SETTLE=5s: what this test checks is that teardown runs after Ctrl-C and leaves nothing
// checked out; the default settle time (the per-request timeout, 60 s), which catches check-outs a
// slow server commits late, is kept by the drills' interrupt under lotus (make drills).
test('a run interrupted with SIGINT leaves no item checked out', async () => {
  assert.equal(run(bin('minifolio'), ['reset'], { env: { MINIFOLIO_DB: minifolioDB() } }).status, 0);
  const testid = `e2e-sigint-${Date.now()}`;
  const child = spawn(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    cwd: repo,
    detached: true, // own process group: the signal reaches folio-perf as Ctrl-C would (it passes it on to k6)
    env: childEnv({ PROFILE: 'smoke', DURATION: '60s', MINIFOLIO_PROFILE: 'fast', TESTID: testid, TEARDOWN_SETTLE: '5s' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  try {
    // Interrupt once the run has check-outs in flight.
    await waitFor(() => openLoans() > 0, { seconds: 60, what: 'an open loan made by the run' });
    process.kill(-child.pid, 'SIGINT');
    let timer;
    const res = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r(null), 90_000)))]);
    clearTimeout(timer);
    assert.ok(res, `the interrupted run stopped within 90 s:\n${out}`);
  } finally {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  assert.equal(openLoans(), 0, 'k6 teardown checked in what the interrupted run checked out');
  const checkedOut = Number(sql(`select count(*) from ${itemTable} where jsonb->'status'->>'name' = 'Checked out'`));
  assert.equal(checkedOut, 0, 'no item left Checked out');
  // Interrupted: teardown says how long it keeps looking, and that a second Ctrl-C would skip it.
  assert.match(out, /the load was cut short, so it looks again for 5 s \(TEARDOWN_SETTLE\).*A second Ctrl-C stops k6 at once/);
});

// CHECKIN_POOL=own takes only the loans folio-perf made: the operator account's, at the run's
// service point, within CHECKIN_WINDOW before the run. A shared admin account's loans made at
// another desk, or long ago, stay out of reach.
test('the DB check-in pool holds only the loans folio-perf made (operator, service point, window) unless CHECKIN_POOL=any', () => {
  assert.equal(run(bin('minifolio'), ['reset'], { env: { MINIFOLIO_DB: minifolioDB() } }).status, 0);
  const users = `${tenant}_mod_users.users`;
  const q = poolQueries(tenant);
  const admin = sql(`select id from ${users} where jsonb->>'username' = 'folio_admin'`);
  const patron = sql(`select id from ${users} where jsonb->>'username' <> 'folio_admin' and jsonb->>'active' = 'true' order by id limit 1`);
  const home = sql(q.homeServicePoint).split('|')[0];
  const otherDesk = sql(`select id from ${tenant}_mod_inventory_storage.service_point where id::text <> '${home}' order by id limit 1`);
  assert.ok(otherDesk, 'a second service point');
  const items = sql(`select id || ' ' || (jsonb->>'barcode') from ${itemTable} where jsonb->'status'->>'name' = 'Available' order by jsonb->>'barcode' limit 4`)
    .split('\n')
    .map((l) => l.split(' '));
  assert.equal(items.length, 4);
  const hoursAgo = (h) => new Date(Date.now() - h * 3600_000).toISOString();
  const loan = (itemId, by, sp, loanDate) =>
    `('${crypto.randomUUID()}', jsonb_build_object('itemId', '${itemId}', 'userId', '${patron}', 'status', jsonb_build_object('name', 'Open'),` +
    ` 'action', 'checkedout', 'loanDate', '${loanDate}', 'checkoutServicePointId', '${sp}', 'metadata', jsonb_build_object('createdByUserId', '${by}')))`;
  const [ours, colleagues, otherDesks, old] = items;
  sql(
    `insert into ${loanTable} (id, jsonb) values ${loan(ours[0], admin, home, hoursAgo(2))}, ${loan(colleagues[0], patron, home, hoursAgo(2))}, ` +
      `${loan(otherDesks[0], admin, otherDesk, hoursAgo(2))}, ${loan(old[0], admin, home, hoursAgo(24 * 40))}`,
  );
  try {
    const pool = (creator, windowHours = 24) =>
      sql(`prepare pool(int, text, text, text) as ${q.checkedOutItems}; execute pool(100, ${creator === null ? 'null' : `'${creator}'`}, '${home}', '${hoursAgo(windowHours)}')`)
        .split('\n')
        .filter(Boolean);
    assert.deepEqual(pool('folio_admin'), [ours[1]], 'CHECKIN_POOL=own: the operator\'s loan at the run\'s desk within the window only');
    assert.deepEqual(pool('folio_admin', 24 * 60).sort(), [ours[1], old[1]].sort(), 'a wider CHECKIN_WINDOW reaches older loans of the run\'s desk');
    assert.deepEqual(pool(null).sort(), items.map((i) => i[1]).sort(), 'CHECKIN_POOL=any: every open loan');
  } finally {
    sql(`delete from ${loanTable}`);
  }
});
