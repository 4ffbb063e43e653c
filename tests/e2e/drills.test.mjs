// Reliability drills on the real stack: a run is interrupted, loses a module or PostgreSQL for a
// moment, meets a loan another account made, or a check-in whose undo fails. After each the
// database holds no open loan of the run and no item the run left checked out, and what was not
// cleaned is named. Every run goes through folio-perf run (the path of `make run`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, openSync, readdirSync, statSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, env, bin, waitFor, run, sql, childEnv, startFolioPerf } from './helpers.mjs';
import { poolQueries } from '../../lib/cico/data.js';

const tenant = 'fs09000000';
const loanTable = `${tenant}_mod_circulation_storage.loan`;
const itemTable = `${tenant}_mod_inventory_storage.item`;
const userTable = `${tenant}_mod_users.users`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmpDrills = mkdtempSync(join(tmpdir(), 'fp-drills-'));

const lines = (text) => text.split('\n').filter(Boolean);
const count = (where) => Number(sql(`select count(*) from ${where}`));
const allLoans = () => count(loanTable);
// Open loans, and items Checked out (with or without a loan), that the operator's run could leave.
const openLoansBy = (username) =>
  lines(sql(`select i.jsonb->>'barcode' from ${loanTable} l join ${itemTable} i on i.id::text = l.jsonb->>'itemId'
    where lower(l.jsonb->'status'->>'name') = 'open' and l.jsonb->'metadata'->>'createdByUserId' = (select id::text from ${userTable} where jsonb->>'username' = '${username}') order by 1`));
const checkedOutItems = () => lines(sql(`select jsonb->>'barcode' from ${itemTable} where jsonb->'status'->>'name' = 'Checked out' order by 1`));
const reset = () => assert.equal(run(bin('minifolio'), ['reset'], { env: { MINIFOLIO_DB: env('FP_PG_DSN') } }).status, 0);

// The service point the run works at and its first available items, as the run selects them.
function runPool(limit) {
  const q = poolQueries(tenant);
  const sp = lines(sql(q.homeServicePoint.replace(/\s+/g, ' ')))[0].split('|')[0];
  const items = lines(sql(`prepare p(int, text) as ${q.availableItems}; execute p(${limit}, '${sp}')`));
  return { sp, items };
}

// Patrons the run may serve (active, no manual block), as it selects them.
const patrons = (limit) => lines(sql(`prepare u(int, text) as ${poolQueries(tenant).activeUsers}; execute u(${limit}, 'folio_admin')`));

// Starts folio-perf run in its own process group (a signal reaches it as Ctrl-C does; it passes it on to k6).
function startRun(name, vars) {
  const testid = `drill-${name}-${Date.now()}`;
  return { testid, ...startFolioPerf({ PROFILE: 'smoke', MINIFOLIO_PROFILE: 'fast', TESTID: testid, ...vars }) };
}

// The run started its load: the first loan exists.
const loadStarted = () => waitFor(() => allLoans() > 0, { seconds: 90, what: 'the first loan of the run' });

// After every drill: nothing the operator's run made is left open or checked out.
function assertClean(what, { keep = [] } = {}) {
  assert.deepEqual(openLoansBy('folio_admin'), [], `${what}: open loans of the run`);
  assert.deepEqual(checkedOutItems().filter((b) => !keep.includes(b)), [], `${what}: items left Checked out`);
}

// Transactions that passed in InfluxDB for a run, before and after a moment (ms).
async function passedAround(testid, atMs) {
  const q = (cond) =>
    `SELECT count("value") FROM "transaction_duration" WHERE "testid" = '${testid}' AND ${cond}`;
  const url = (s) => `${env('FP_INFLUX_URL')}/query?db=k6&epoch=ms&q=${encodeURIComponent(s)}`;
  const n = async (cond) => {
    const body = await (await fetch(url(q(cond)))).json();
    const v = body.results?.[0]?.series?.[0]?.values?.[0]?.[1];
    return v ?? 0;
  };
  return { before: await n(`time < ${atMs}ms`), after: await n(`time >= ${atMs}ms`) };
}

// Seeds only an empty tenant: the drills need items and patrons, not a particular set.
before(() => {
  const r = run(bin('minifolio'), ['seed', '--quiet', '--items', '2000', '--users', '40', '--loans', '50'], {
    env: { MINIFOLIO_DB: env('FP_PG_DSN') },
    timeoutMs: 300_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

after(() => reset());

test('interrupt under lotus (check-out ~1 s): teardown converges, nothing is left checked out', async () => {
  reset();
  const r = startRun('sigint-lotus', { MINIFOLIO_PROFILE: 'lotus', VUS: '20', DURATION: '60s', THINK: 'none' });
  await loadStarted();
  // Several check-out POSTs in flight: each takes about a second on lotus.
  await waitFor(() => allLoans() >= 10, { seconds: 60, what: '10 loans' });
  r.signal('SIGINT');
  const { code, out } = await r.done(240);
  assert.notEqual(code, 'timeout', `the interrupted run ended in time:\n${out}`);
  const left = [...new Set([...openLoansBy('folio_admin'), ...checkedOutItems()])];
  console.log(`interrupt: ${left.length} items left checked out after teardown`);
  assertClean('after Ctrl-C under lotus');
  // The default settle time, the per-request timeout: a check-out of ~1 s cut off by Ctrl-C can be
  // committed after teardown's first listing (test-e2e-cico's interrupt uses a short TEARDOWN_SETTLE).
  assert.match(out, /teardown: checking in .*the load was cut short, so it looks again for 60 s \(TEARDOWN_SETTLE\)/);
  const done = /teardown checked in ([1-9]\d*) items .*; (\d+) appeared after the first listing/.exec(out);
  assert.ok(done, out);
  console.log(`interrupt: teardown checked in ${done[1]} items, ${done[2]} of them committed after its first listing`);
  assert.doesNotMatch(out, /could not check in|left \d+ items checked out/, out);
});

test('a second Ctrl-C stops teardown: what it left is named by barcode, with the reset command', async () => {
  reset();
  const r = startRun('double-sigint', { MINIFOLIO_PROFILE: 'lotus', VUS: '10', DURATION: '60s', THINK: 'none' });
  await loadStarted();
  await waitFor(() => allLoans() >= 10, { seconds: 60, what: '10 loans' });
  r.signal('SIGINT');
  await waitFor(() => /teardown: checking in/.test(r.output()), { seconds: 30, what: 'teardown to start' });
  r.signal('SIGINT');
  const { code, out } = await r.done(60);
  assert.notEqual(code, 'timeout', out);
  const left = [...new Set([...openLoansBy('folio_admin'), ...checkedOutItems()])].sort();
  assert.ok(left.length > 0, `the drill needs items left behind by the second Ctrl-C:\n${out}`);
  const m = /the run left (\d+) items checked out: ([^\n]*)/.exec(out);
  assert.ok(m, `folio-perf run names what was left:\n${out}`);
  assert.equal(Number(m[1]), left.length);
  assert.deepEqual(m[2].trim().split(' ').slice(0, 20), left.slice(0, 20));
  assert.match(out, /fix: .*bin\/minifolio reset/);
  assert.doesNotMatch(out, new RegExp(env('FOLIO_DB_PASSWORD')), 'no password in the output');
  reset();
  assertClean('after bin/minifolio reset');
});

// The same on a FOLIO that is not this stack's (FOLIO_URL set; minifolio under lotus stands in for
// it and is not restarted by the run): the run cannot read that FOLIO's database, so it lists
// through the API the open loans its operator made since the run started, by barcode, and advises
// checking in those; never the restore SQL, which would end every loan of the tenant.
test('a second Ctrl-C on your FOLIO: the run lists its own open loans by barcode, never the restore SQL', async () => {
  reset();
  const mf = { env: { MINIFOLIO_DB: env('FP_PG_DSN') } };
  const runDir = join(env('FP_STACK_DIR'), 'minifolio');
  assert.equal(run(bin('minifolio'), ['down', '--run-dir', runDir], mf).status, 0);
  const up = run(bin('minifolio'), ['up', '--run-dir', runDir, '--port', env('FP_MINIFOLIO_PORT'), '--profile', 'lotus'], mf);
  assert.equal(up.status, 0, up.stdout + up.stderr);
  const r = startRun('double-sigint-remote', {
    VUS: '10', DURATION: '60s', THINK: 'none', FOLIO_URL: `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`, FOLIO_PASSWORD: 'admin', FOLIO_DB_PORT: env('FP_PG_PORT'),
  });
  await loadStarted();
  await waitFor(() => allLoans() >= 10, { seconds: 60, what: '10 loans' });
  r.signal('SIGINT');
  await waitFor(() => /teardown: checking in/.test(r.output()), { seconds: 30, what: 'teardown to start' });
  r.signal('SIGINT');
  const { code, out } = await r.done(90);
  assert.equal(code, 105, out);
  const open = openLoansBy('folio_admin');
  assert.ok(open.length > 0, `the drill needs loans left open by the second Ctrl-C:\n${out}`);
  const m = /left (\d+) open loans, made by its operator since \S+; item barcodes:\n((?: {4}(?!fix:)\S.*\n)+)/.exec(out);
  assert.ok(m, `folio-perf run lists the open loans it left:\n${out}`);
  assert.equal(Number(m[1]), open.length);
  assert.deepEqual(m[2].trim().split(/\s+/), open);
  assert.match(out, /fix: check in exactly these items/);
  assert.doesNotMatch(out, /restore\.sql|truncat|minifolio reset|folio-perf reset/i);
  reset();
  assertClean('after bin/minifolio reset');
});

// DATA=db finds the run's loans in the database, DATA=csv through the API: both must leave the
// other account's loans alone.
for (const data of ['db', 'csv']) {
  test(`a loan another account makes during the run survives teardown (DATA=${data})`, async () => {
    await foreignLoanDrill(data);
  });
}

async function foreignLoanDrill(data) {
  reset();
  const { sp, items } = runPool(200);
  const vars = { DURATION: '20s', POOL_PER_VU: '5' };
  if (data === 'csv') {
    // PTF's files: the same pool as DATA=db would take, patrons, the service point.
    const dir = mkdtempSync(join(tmpdir(), 'fp-drill-csv-'));
    writeFileSync(join(dir, 'available.csv'), items.slice(0, 5).join('\n') + '\n');
    writeFileSync(join(dir, 'user_barcodes.csv'), patrons(20).join('\n') + '\n');
    writeFileSync(join(dir, 'service_point.csv'), sp + '\n');
    vars.DATA = `csv:${dir}`;
  }
  const other = sql(`select id from ${userTable} where jsonb->>'username' <> 'folio_admin' and jsonb->>'active' = 'true' order by id limit 1`);
  const r = startRun(`foreign-loan-${data}`, vars);
  await loadStarted();
  // One loan on an item outside the run's pool, one on an item of it (the run's 4th), at the run's
  // service point, made now through the API and then attributed to another account, as if another
  // staff member had checked them out.
  const foreign = [items[150], items[3]];
  const patron = patrons(40).at(-1);
  const okapi = `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`;
  const login = await fetch(`${okapi}/authn/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Okapi-Tenant': tenant },
    body: JSON.stringify({ username: 'folio_admin', password: 'admin' }),
  });
  const headers = { 'Content-Type': 'application/json', 'X-Okapi-Tenant': tenant, 'X-Okapi-Token': login.headers.get('x-okapi-token') };
  for (const itemBarcode of foreign) {
    // The run's own item may be on loan to the run right now: try until it is back.
    const loan = await waitFor(async () => {
      const res = await fetch(`${okapi}/circulation/check-out-by-barcode`, {
        method: 'POST', headers, body: JSON.stringify({ itemBarcode, userBarcode: patron, servicePointId: sp, loanDate: new Date().toISOString() }),
      });
      return res.status === 201 ? res.json() : null;
    }, { seconds: 20, what: `a check-out of ${itemBarcode} for the other account` });
    sql(`update ${loanTable} set jsonb = jsonb_set(jsonb, '{metadata,createdByUserId}', '"${other}"') where id = '${loan.id}'`);
  }
  const { code, out } = await r.done(120);
  assert.notEqual(code, 'timeout', out);
  const stillOpen = lines(sql(`select i.jsonb->>'barcode' from ${loanTable} l join ${itemTable} i on i.id::text = l.jsonb->>'itemId'
    where lower(l.jsonb->'status'->>'name') = 'open' and l.jsonb->'metadata'->>'createdByUserId' = '${other}' order by 1`));
  const story = sql(`select i.jsonb->>'barcode', l.jsonb->'status'->>'name', l.jsonb->>'loanDate', l.jsonb->>'returnDate', l.jsonb->'metadata'
    from ${loanTable} l join ${itemTable} i on i.id::text = l.jsonb->>'itemId' where i.jsonb->>'barcode' in ('${foreign.join("','")}') order by l.jsonb->>'loanDate'`);
  assert.deepEqual(stillOpen, [...foreign].sort(), `the other account's loans are still open; their loans:\n${story}\n${out}`);
  assert.deepEqual(checkedOutItems().filter((b) => foreign.includes(b)), [...foreign].sort(), 'the other account\'s items are still Checked out');
  assertClean('after a run beside a foreign loan', { keep: foreign });
  assert.match(out, /teardown checked in/);
}

// Restarts one minifolio module with its own command line and environment (the pid file is
// rewritten so `minifolio down` stops the new process).
function restartModule(name) {
  const dir = join(env('FP_STACK_DIR'), 'minifolio');
  const pid = Number(readFileSync(join(dir, `${name}.pid`), 'utf8').trim());
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  process.kill(pid, 'SIGKILL');
  return () => {
    const log = openSync(join(dir, 'logs', `${name}.log`), 'a');
    const child = spawn(args[0], args.slice(1), { detached: true, stdio: ['ignore', log, log], env: childEnv({ MINIFOLIO_DB: env('FP_PG_DSN') }) });
    child.unref();
    writeFileSync(join(dir, `${name}.pid`), `${child.pid}\n`);
  };
}

function pgRestart() {
  const pgBin = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b)).at(-1);
  const data = join(env('FP_STACK_DIR'), 'postgres', 'data');
  const ctl = [`/usr/lib/postgresql/${pgBin}/bin/pg_ctl`, '-D', data, '-l', join(env('FP_STACK_DIR'), 'logs', 'postgres.log'), '-m', 'fast', '-w', '-t', '60', 'restart'];
  const asOwner = process.getuid() === 0 ? ['runuser', ['-u', 'postgres', '--', ...ctl]] : [ctl[0], ctl.slice(1)];
  const r = spawnSync(asOwner[0], asOwner[1], { encoding: 'utf8', timeout: 90_000, stdio: ['ignore', 'ignore', 'pipe'] });
  assert.equal(r.status, 0, r.stderr);
  // The stack stops PostgreSQL through its pid file: keep it true.
  const pid = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0];
  writeFileSync(join(env('FP_STACK_DIR'), 'run', 'postgres.pid'), `${pid}\n`);
}

// A fault a few seconds into a 45-second run: the run must keep loading afterwards, at a rate
// comparable to before (items of failed transactions come back once re-read).
async function blipDrill(name, fault, vars = {}) {
  reset();
  const r = startRun(name, { VUS: '2', DURATION: '45s', POOL_PER_VU: '5', ...vars });
  await loadStarted();
  await sleep(8000);
  const t0 = Date.now();
  await fault();
  const healed = Date.now();
  const { code, out } = await r.done(180);
  assert.notEqual(code, 'timeout', out);
  // Passed transactions per second before the fault, and from 10 s after it healed to the end of
  // the load.
  const summary = JSON.parse(readFileSync(join(repo, 'results', r.testid, 'summary.json'), 'utf8'));
  const loadStart = Date.parse(summary.meta.startedAt);
  const loadEnd = loadStart + 45_000;
  const since = healed + 10_000;
  const { before: b } = await passedAround(r.testid, t0);
  const { after: a } = await passedAround(r.testid, since);
  const beforeRate = b / ((t0 - loadStart) / 1000);
  const afterRate = a / ((loadEnd - since) / 1000);
  const failed = summary.k6.metrics.transaction_failed?.values;
  console.log(`${name}: ${b} transactions in ${((t0 - loadStart) / 1000).toFixed(1)} s before the fault (${beforeRate.toFixed(1)}/s), ` +
    `${a} in ${((loadEnd - since) / 1000).toFixed(1)} s from 10 s after it (${afterRate.toFixed(1)}/s); failed transactions: ${failed?.passes}`);
  assert.ok(failed && failed.passes > 0, 'the fault failed transactions, and they are counted');
  assert.ok(afterRate >= 0.3 * beforeRate, `the run keeps loading after the fault: ${afterRate.toFixed(1)}/s after vs ${beforeRate.toFixed(1)}/s before\n${out}`);
  assertClean(`after ${name}`);
  return { out };
}

test('a module killed and restarted mid-run: the load goes on', async () => {
  await blipDrill('module-restart', async () => {
    const restart = restartModule('mod-circulation');
    await sleep(2000);
    restart();
    await waitFor(async () => (await fetch(`http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}/admin/health`)).ok, { seconds: 20, what: 'the gateway' });
  });
});

// ---- Eureka (sunflower: Kong, a sidecar per module, the stack's Keycloak) ----------------------

const summaryOf = (testid) => JSON.parse(readFileSync(join(repo, 'results', testid, 'summary.json'), 'utf8'));
const counted = (s, metric) => s.k6.metrics[metric]?.values?.count ?? 0;

test('Eureka: 10-second tokens expire while the users think (12 s per timer): refreshed before each request, no 401, nothing failed', async () => {
  reset();
  const r = startRun('eureka-expiry', { MINIFOLIO_PROFILE: 'sunflower', TOKEN_TTL: '10s', THINK: '12000', VUS: '2', DURATION: '60s', POOL_PER_VU: '5' });
  const { code, out } = await r.done(600);
  assert.ok(code === 0 || code === 99, `${code}\n${out}`); // 99: a timing SLO on this shared machine, not asserted
  const s = summaryOf(r.testid);
  assert.equal(s.meta.platform, 'eureka');
  assert.equal(counted(s, 'auth_unauthorized'), 0, '401 answers');
  assert.equal(counted(s, 'auth_refresh_refused'), 0);
  assert.equal(counted(s, 'auth_logins'), 4, 'one login per VU, setup and teardown: the sessions lived on refreshes');
  assert.ok(counted(s, 'auth_refreshes') >= 4, `refreshes: ${counted(s, 'auth_refreshes')}`);
  assert.equal(s.k6.metrics.transaction_failed?.values?.passes ?? 0, 0, 'no failed transaction');
  assertClean('after tokens expired mid-run');
});

test('Eureka: a reused refresh token is refused (422), counted, and the session logs in again; on Keycloak the rotated one is refused too', () => {
  // tests/e2e/k6/refresh-reuse.js drives lib/k6/auth.js's Session against the sunflower minifolio
  // the previous drill left up.
  const r = run(bin('k6'), ['run', '--quiet', join(repo, 'tests', 'e2e', 'k6', 'refresh-reuse.js')], {
    env: { FOLIO_ENV: 'local', FOLIO_URL: `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`, FOLIO_PASSWORD: 'admin', SUMMARY_OUT: join(tmpDrills, 'refresh-reuse.json') },
    timeoutMs: 180_000,
  });
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 0, out);
  // k6's own summary data (handleSummary's argument), as folio-perf's summary.json holds it under k6
  const s = { k6: JSON.parse(readFileSync(join(tmpDrills, 'refresh-reuse.json'), 'utf8')) };
  assert.equal(counted(s, 'auth_refresh_refused'), 2, 'the reused token and then the rotated one');
  assert.equal(counted(s, 'auth_refreshes'), 3);
  assert.equal(counted(s, 'auth_logins'), 3, 'the first login and one after each refusal');
  assert.equal(s.k6.metrics.checks.values.fails, 0, out);
});

test('Eureka: a sidecar killed and restarted mid-run: the load goes on', async () => {
  await blipDrill('sidecar-restart', async () => {
    const restart = restartModule('sidecar-mod-circulation');
    await sleep(2000);
    restart();
    await waitFor(async () => (await fetch(`http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}/version`)).ok, { seconds: 20, what: 'Kong' });
  }, { MINIFOLIO_PROFILE: 'sunflower' });
});

test('PostgreSQL restarted mid-run: the load goes on', async () => {
  await blipDrill('pg-restart', async () => pgRestart());
});

test('a check-in whose item update and undo fail: the item is repaired, not left Checked out', async () => {
  reset();
  const { items } = runPool(5);
  const victim = items[0];
  const log = join(env('FP_STACK_DIR'), 'minifolio', 'logs', 'mod-circulation.log');
  const r = startRun('failed-undo', { DURATION: '25s', POOL_PER_VU: '5' });
  await loadStarted();
  // The fault lasts until just after the load ends, so the item is still stranded then and
  // teardown, not the VU, has to find it.
  const faultEnds = new Date(Date.now() + 26_000).toISOString();
  const logFrom = statSync(log).size;
  // Until then, the victim's check-in item update fails, and reopening its loan too:
  // mod-circulation's undo fails and leaves it Checked out without a loan.
  sql(`create or replace function drill_fail() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'item' and new.jsonb->>'barcode' = '${victim}' and old.jsonb->'status'->>'name' = 'Checked out'
         and new.jsonb->'status'->>'name' = 'Available' and now() < '${faultEnds}'::timestamptz then
        raise exception 'drill: item update fails';
      end if;
      if tg_table_name = 'loan' and old.jsonb->'status'->>'name' = 'Closed' and new.jsonb->'status'->>'name' = 'Open' then
        raise exception 'drill: undo fails';
      end if;
      return new;
    end $$;
    create trigger drill_fail before update on ${itemTable} for each row execute function drill_fail();
    create trigger drill_fail before update on ${loanTable} for each row execute function drill_fail();`);
  let out;
  try {
    ({ out } = await r.done(120));
  } finally {
    sql(`drop trigger if exists drill_fail on ${itemTable}; drop trigger if exists drill_fail on ${loanTable}; drop function if exists drill_fail()`);
  }
  const logged = readFileSync(log, 'utf8').slice(logFrom);
  assert.match(logged, new RegExp(`undoing a half-done step failed.*item ${victim} stays Checked out without an open loan`), 'the drill made an undo fail');
  assertClean('after a failed undo');
  assert.match(out, /teardown checked in/);
});
