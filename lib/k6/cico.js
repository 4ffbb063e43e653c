// The check-in/check-out workflow's k6 lifecycle: test data (init, once), setup (login, checks
// the data), one iteration per transaction, teardown (check in what the run left checked out)
// and handleSummary (report tables, results/<testid>/summary.json). Created in init context by
// the entry script.

import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { Trend, Rate } from 'k6/metrics';
import { Session } from './auth.js';
import { makeClient, failureLog } from './folio.js';
import { sharedPoolsFromDb, poolsFromCsv, runLoansFromDb } from './data.js';
import { checkOut, checkIn, selectTransaction, CHECK_OUT, CHECK_IN } from '../transactions.js';
import { vuPool, checkPools, partition } from '../data.js';
import * as api from '../folio.js';

// Teardown's clean-up calls carry their own names so they never count in the run's per-API numbers.
const TEARDOWN_PREFIX = 'teardown ';

export function cicoWorkflow(run, read) {
  const { cfg } = run;
  const env = __ENV;
  // Init context: the test-data SharedArrays are built once and shared by all VUs (never
  // returned from setup(), which k6 would copy into every VU).
  const csv = cfg.data.kind === 'csv' ? poolsFromCsv(read, cfg.data.dir) : null;
  const db = cfg.data.kind === 'db' ? sharedPoolsFromDb(cfg, run.slots * run.perVu, env.SERVICE_POINT_ID || null) : null;
  const transactionDuration = new Trend('transaction_duration', true);
  const transactionFailed = new Rate('transaction_failed');

  function abort(msg) {
    exec.test.abort(`folio-perf: ${msg}`);
  }

  function setup() {
    console.log(`folio-perf: ${run.describe()}`);
    const session = new Session(cfg);
    const cause = session.login();
    if (cause) return abort(cause);

    let servicePointId = env.SERVICE_POINT_ID || null;
    let counts;
    if (db) {
      if (db.error) return abort(db.error);
      servicePointId = db.servicePointId;
      counts = db;
    } else {
      counts = csv;
      servicePointId = servicePointId || csv.servicePoint;
      if (!servicePointId) {
        const res = http.get(`${cfg.folio.url}/service-points?limit=1`, { headers: session.headers(), tags: { name: 'GET /service-points' } });
        const body = api.parseJson(res.body);
        const sp = body && Array.isArray(body.servicepoints) && body.servicepoints[0];
        if (!sp) return abort(`no service point: GET /service-points answered ${res.status}; fix: set SERVICE_POINT_ID or add service_point.csv to ${cfg.data.dir}`);
        servicePointId = sp.id;
      }
    }
    const problems = checkPools(counts);
    if (problems.length) {
      const fix = cfg.data.kind === 'db' ? 'seed or reset the target (bin/minifolio seed / bin/minifolio reset, or PTF\'s checkin-checkout-db-restore.sql)' : `fill the CSV files in ${cfg.data.dir}`;
      // With DATA=db only items shelved at the run's service point count (see lib/data.js).
      const where = cfg.data.kind === 'db' ? ` (items shelved at service point ${servicePointId})` : '';
      return abort(`no test data for tenant ${cfg.folio.tenant}${where}: ${problems.join('; ')}; fix: ${fix}${env.SERVICE_POINT_ID ? ', or unset SERVICE_POINT_ID' : ''}`);
    }
    if (counts.available.length < run.slots) {
      console.warn(`folio-perf: only ${counts.available.length} available items for up to ${run.slots} VUs; some VUs will only check in`);
    }
    console.log(`folio-perf: test data: ${counts.available.length} available items, ${counts.checkedOut.length} checked out, ${counts.users.length} patrons, service point ${servicePointId}`);
    return {
      testid: exec.test.options.tags.testid,
      startedAt: new Date().toISOString(),
      servicePointId,
      slots: run.slots,
    };
  }

  let vu = null;

  function initVu(data) {
    const idx = (exec.vu.idInTest - 1) % data.slots;
    const source = db || csv;
    const cap = (a) => (a.length > run.perVu ? a.slice(0, run.perVu) : a);
    const share = {
      available: cap(partition(source.available, data.slots, idx)),
      checkedOut: cap(partition(source.checkedOut, data.slots, idx)),
      users: source.users.length >= data.slots ? cap(partition(source.users, data.slots, idx)) : Array.from(source.users),
    };
    const log = failureLog(exec.vu.idInTest);
    const session = new Session(cfg);
    vu = { pool: vuPool(share, 1, 0), session, log, client: makeClient({ cfg, session, think: run.think, log }), idle: false };
  }

  function iteration(data) {
    if (!vu) initVu(data);
    const cause = vu.session.ensureFresh();
    if (cause) {
      vu.log.failure('login', cause);
      sleep(5);
      return;
    }
    const kind = vu.pool.choose(selectTransaction(run.distribution, Math.random()));
    const job = kind === CHECK_OUT ? vu.pool.takeForCheckOut() : kind === CHECK_IN ? vu.pool.takeForCheckIn() : null;
    if (!job) {
      if (!vu.idle) console.warn(`VU ${exec.vu.idInTest}: no item left in its pool (dropped after failures: ${vu.pool.dropped}); idling`);
      vu.idle = true;
      sleep(1);
      return;
    }
    const now = () => new Date().toISOString();
    const opts = { preflight: run.preflight };
    const r =
      kind === CHECK_OUT
        ? checkOut(vu.client, { ...job, servicePointId: data.servicePointId, now }, opts)
        : checkIn(vu.client, { ...job, servicePointId: data.servicePointId, now }, opts);
    if (r.ok && kind === CHECK_OUT) vu.pool.checkedOutOk(job.itemBarcode);
    else if (r.ok) vu.pool.checkedInOk(job.itemBarcode);
    else vu.pool.failed();
    const tags = { transaction: kind };
    transactionFailed.add(!r.ok, tags);
    // Only passed transactions: a fast 422 would otherwise pull the percentiles down.
    if (r.ok) transactionDuration.add(r.durationMs, tags);
  }

  function loansViaApi(session, data) {
    const barcodes = [];
    for (let offset = 0; offset < 100000; offset += 100) {
      const q = api.openLoansSince(data.servicePointId, data.startedAt, 100, offset);
      const res = http.get(cfg.folio.url + q.url, { headers: session.headers(), tags: { name: TEARDOWN_PREFIX + q.name } });
      const v = q.verify(res.status, res.body);
      if (!v.ok) throw new Error(`listing the run's open loans failed (${v.detail}); fix: run folio-perf reset (or PTF's restore SQL) before the next run`);
      for (const l of v.value.loans) if (l.item && l.item.barcode) barcodes.push(l.item.barcode);
      if (v.value.loans.length < 100) break;
    }
    return barcodes;
  }

  // Checks in every item the run checked out and left on loan (VU state is gone by now, so the
  // loans are found in the database, or through the API with DATA=csv).
  function teardown(data) {
    if (!data || !data.servicePointId) return;
    const session = new Session(cfg);
    const cause = session.login();
    if (cause) {
      console.error(`folio-perf: teardown cannot log in (${cause}); items may stay checked out: run folio-perf reset`);
      return;
    }
    let barcodes;
    try {
      barcodes = cfg.data.kind === 'db' ? runLoansFromDb(cfg, data.servicePointId, data.startedAt) : loansViaApi(session, data);
    } catch (e) {
      console.error(`folio-perf: teardown: ${e && e.message ? e.message : e}`);
      return;
    }
    let failed = 0;
    for (const itemBarcode of barcodes) {
      session.ensureFresh();
      const q = api.checkInByBarcode({ itemBarcode, servicePointId: data.servicePointId, checkInDate: new Date().toISOString() });
      const res = http.post(cfg.folio.url + q.url, q.body, {
        headers: { ...session.headers(), 'Content-Type': 'application/json' },
        tags: { name: TEARDOWN_PREFIX + q.name },
      });
      if (!q.verify(res.status, res.body).ok) failed++;
    }
    console.log(`folio-perf: teardown checked in ${barcodes.length - failed} of ${barcodes.length} items the run left checked out`);
    if (failed) console.error(`folio-perf: teardown could not check in ${failed} items; run folio-perf reset before the next run`);
  }

  function testidOf(data) {
    if (data.setup_data && data.setup_data.testid) return data.setup_data.testid;
    try {
      return exec.test.options.tags.testid;
    } catch (_) {
      return run.testid;
    }
  }

  function handleSummary(data) {
    const testid = testidOf(data);
    const { renderText, summaryDocument, summaryPath } = run.report;
    const path = summaryPath(testid);
    const writable = run.resultsDirExists && testid === run.testid;
    const meta = {
      testid,
      workflow: run.workflow,
      release: cfg.release,
      target: cfg.target,
      profile: run.profile.name,
      steps: run.profile.steps,
      stepDuration: `${run.profile.durationMs / 1000}s`,
      think: env.THINK || run.profile.think,
      distribution: `${run.distribution.checkIn}-${run.distribution.checkOut}`,
      preflight: run.preflight,
      baseline: env.BASELINE || null,
      startedAt: data.setup_data ? data.setup_data.startedAt : null,
      finishedAt: new Date().toISOString(),
      webReport: env.K6_WEB_DASHBOARD_EXPORT || null,
      summaryPath: writable ? path : null,
    };
    const out = { stdout: renderText(data, meta) };
    if (writable) out[path] = JSON.stringify(summaryDocument(data, meta), null, 2);
    else out.stdout += `summary.json not written: results/${testid}/ does not exist (k6 cannot create directories); fix: run through make run, or set TESTID and mkdir -p results/$TESTID first\n`;
    return out;
  }

  return { setup, iteration, teardown, handleSummary };
}
