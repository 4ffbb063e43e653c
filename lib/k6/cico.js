// The check-in/check-out workflow's k6 lifecycle: test data (init, once), setup (login, checks
// the data), one iteration per transaction, teardown (check in what the run left checked out)
// and handleSummary (report tables, results/<testid>/summary.json). Created in init context by
// the entry script.

import exec from 'k6/execution';
import { sleep } from 'k6';
import { Trend, Rate } from 'k6/metrics';
import { Session } from './auth.js';
import { makeHandleSummary } from './summary-out.js';
import { makeClient, failureLog, REQUEST_TIMEOUT } from './folio.js';
import { sharedPoolsFromDb, poolsFromCsv, loadDbData } from './cico-data.js';
import { checkOut, checkIn, selectTransaction, CHECK_OUT, CHECK_IN } from '../cico/transactions.js';
import { vuPool, checkPools, vuShare, runItemBarcodes, placeAfterFailure, teardownSettleMs } from '../cico/data.js';
import { durationMs } from '../profiles.js';
import { parseSegment, segmentPools, segmentSlots } from '../segments.js';
import * as api from '../cico/api.js';
import { cqlQuote, cqlId, randomUuid } from '../folio.js';
import { METRICS, TAGS } from '../metrics.js';
import { platform as platformOf, platformOfRecord } from '../platforms.js';
import { uiRelease, defaultUiRelease } from '../cico/releases.js';

// Teardown's clean-up calls, and a VU's re-reads of an item whose transaction failed, carry their
// own names so they never count in the run's per-API numbers.
const TEARDOWN_PREFIX = 'teardown ';
const RECOVER_PREFIX = 'recover ';
// What to do when a run leaves items checked out (named in every such message).
// The same words on minifolio and on a real FOLIO, and never a restore SQL: on a real FOLIO that ends
// every loan of the tenant, staff's and patrons' alike. folio-perf run names what is left.
const RECOVERY = 'check in the items left checked out (folio-perf run lists them when it ends)';
// A teardown check-in that failed this often is reported instead of retried.
const TEARDOWN_TRIES = 3;

// A duration setting in ms, or the default; a bad value stops k6 in init with one line.
function settingMs(v, name, dflt) {
  if (v === undefined || v === '') return dflt;
  const ms = durationMs(v);
  if (ms === null) throw `folio-perf: ${name} "${v}" is not a duration; fix: use e.g. ${name}=60s`;
  return ms;
}

export function cicoWorkflow(run, read) {
  const { cfg } = run;
  const env = __ENV;
  // Init context: the test-data SharedArrays are built once and shared by all VUs (never
  // returned from setup(), which k6 would copy into every VU).
  const csv = cfg.data.kind === 'csv' ? poolsFromCsv(read, cfg.data.dir) : null;
  // The k6/x/sql side (DATA=db only), in the init of VU 0: it runs the pools' queries (the first
  // init) and setup and teardown; a load VU gets the stored pools and needs no database.
  const dbData = cfg.data.kind === 'db' && __VU === 0 ? loadDbData() : null;
  const db = cfg.data.kind === 'db' ? sharedPoolsFromDb(cfg, run.slots * run.perVu, env.SERVICE_POINT_ID || null, dbData) : null;
  const inFlightMs = settingMs(env.TEARDOWN_SETTLE, 'TEARDOWN_SETTLE', durationMs(REQUEST_TIMEOUT));
  const transactionDuration = new Trend(METRICS.transactionDuration, true);
  const transactionFailed = new Rate(METRICS.transactionFailed);

  function abort(msg) {
    exec.test.abort(`folio-perf: ${msg}`);
  }

  // This runner's execution segment (null on one process) and its part of the pools: see
  // lib/segments.js. k6 gives the segment only outside init, so setup, each VU and teardown ask.
  function runnerSegment() {
    try {
      return parseSegment(exec.test.options.executionSegment);
    } catch (e) {
      return abort(e.message);
    }
  }
  const runnerPools = (segment) => segmentPools(db || csv, segment);

  function setup() {
    console.log(`folio-perf: ${run.describe()}`);
    const session = new Session(cfg);
    const cause = session.login();
    if (cause) return abort(cause);
    // What the run tests, as the target announces it before the first user starts; from it, which
    // platform, and which UI release's screens to replay (unless set).
    const record = run.captureRecord(session);
    const target = platformOfRecord(record, run.platform);
    if (target.error) return abort(target.error);
    const ui = run.uiRelease ? { release: run.uiRelease, why: 'UI_RELEASE' } : defaultUiRelease(target.platform, target.modules);
    console.log(`folio-perf: platform ${platformOf(target.platform).label} (${target.why}); UI release ${ui.release} (${ui.why}): ${uiRelease(ui.release).source}`);
    const client = makeClient({ cfg, session, think: null, log: failureLog('setup') });
    const segment = runnerSegment();
    // Local VU numbers run 1..n in each process; k6 initialised them all before setup.
    const slots = segment ? segmentSlots(run.profile.scenarios, segment, exec.instance.vusInitialized) : run.slots;

    let servicePointId = env.SERVICE_POINT_ID || null;
    let counts;
    if (db) {
      if (db.error) return abort(db.error);
      servicePointId = db.servicePointId;
      counts = runnerPools(segment);
    } else {
      counts = runnerPools(segment);
      servicePointId = servicePointId || csv.servicePoint;
      if (!servicePointId) {
        const r = client.aside(api.firstServicePoint());
        if (!r.ok) return abort(`no service point: GET /service-points answered ${r.status}${r.detail ? ` (${r.detail})` : ''}; fix: set SERVICE_POINT_ID or add service_point.csv to ${cfg.data.dir}`);
        servicePointId = r.value;
      }
    }
    const problems = checkPools(counts);
    if (problems.length) {
      const fix = cfg.data.kind === 'db' ? 'seed or reset the local minifolio (bin/minifolio seed, folio-perf reset); on your FOLIO check in test items at that service point' : `fill the CSV files in ${cfg.data.dir}`;
      // With DATA=db only items shelved at the run's service point count (see lib/cico/data.js).
      const where = cfg.data.kind === 'db' ? ` (items shelved at service point ${servicePointId})` : '';
      return abort(`no test data for tenant ${cfg.folio.tenant}${where}: ${problems.join('; ')}; fix: ${fix}${env.SERVICE_POINT_ID ? ', or unset SERVICE_POINT_ID' : ''}`);
    }
    if (counts.available.length < slots) {
      console.warn(`folio-perf: only ${counts.available.length} available items for up to ${slots} VUs; some VUs will only check in`);
    }
    const part = segment ? ` (execution segment ${segment.text}: this runner's part of the data)` : '';
    console.log(`folio-perf: test data${part}: ${counts.available.length} available items, ${counts.checkedOut.length} checked out, ${counts.users.length} patrons, service point ${servicePointId}`);
    // The operator's user id: loans it created (metadata.createdByUserId) are the only ones a VU
    // takes back after a failed transaction, and (DATA=csv) the only ones teardown checks in.
    const who = operatorId(client);
    if (who.error) return abort(who.error);
    return {
      testid: exec.test.options.tags.testid,
      startedAt: new Date().toISOString(),
      servicePointId,
      slots,
      segment: segment ? segment.text : null,
      operatorId: who.id,
      record,
      platform: target.platform,
      uiRelease: ui.release,
    };
  }

  function operatorId(client) {
    const r = client.aside(api.userByUsername(cfg.folio.user));
    const users = r.ok ? r.value.users.filter((u) => u.username === cfg.folio.user) : [];
    const id = users.length === 1 && users[0].id;
    if (!id) return { error: `cannot read the operator account "${cfg.folio.user}" (GET /users answered ${r.status}); fix: give FOLIO_USER the permission users.collection.get` };
    return { id };
  }

  let vu = null;

  function initVu(data) {
    const segment = parseSegment(data.segment);
    // k6's idInTest is unique across runners, idInInstance counts 1..n within this one: a
    // segmented runner slices its own part of the data by the latter.
    const idx = ((segment ? exec.vu.idInInstance : exec.vu.idInTest) - 1) % data.slots;
    const share = vuShare(runnerPools(segment), data.slots, idx, run.perVu);
    const log = failureLog(exec.vu.idInTest);
    const session = new Session(cfg, { token: platformOf(data.platform).token });
    // ui-checkin 11+ sends its check-in session's id with every check-in: one per VU (one screen).
    vu = { pool: vuPool(share, 1, 0), session, log, client: makeClient({ cfg, session, think: run.think, log }), idle: false, release: uiRelease(data.uiRelease), sessionId: randomUuid() };
  }

  function iteration(data) {
    if (!vu) initVu(data);
    const cause = vu.session.ensureFresh();
    if (cause) {
      vu.log.failure('login', cause);
      sleep(5);
      return;
    }
    const suspect = vu.pool.dueSuspect(Date.now());
    if (suspect !== null) recheck(suspect, data);
    const kind = vu.pool.choose(selectTransaction(run.distribution, Math.random()));
    const job = kind === CHECK_OUT ? vu.pool.takeForCheckOut() : kind === CHECK_IN ? vu.pool.takeForCheckIn() : null;
    if (!job) {
      const next = vu.pool.nextDueMs();
      if (next !== null) {
        // Every item is waiting to be re-read: wait for the first, not for the end of the run.
        sleep(Math.min(5, Math.max(0.1, (next - Date.now()) / 1000)));
        return;
      }
      if (!vu.idle) console.warn(`VU ${exec.vu.idInTest}: no item left in its pool (dropped after failures: ${vu.pool.dropped}); idling`);
      vu.idle = true;
      sleep(1);
      return;
    }
    vu.idle = false;
    const now = () => new Date().toISOString();
    const opts = { preflight: run.preflight };
    const input = { ...job, servicePointId: data.servicePointId, sessionId: vu.sessionId, now };
    const r = kind === CHECK_OUT ? checkOut(vu.client, input, opts, vu.release) : checkIn(vu.client, input, opts, vu.release);
    if (r.ok && kind === CHECK_OUT) vu.pool.checkedOutOk(job.itemBarcode);
    else if (r.ok) vu.pool.checkedInOk(job.itemBarcode);
    else vu.pool.failed(job.itemBarcode, Date.now());
    const tags = { [TAGS.transaction]: kind };
    transactionFailed.add(!r.ok, tags);
    // Only passed transactions: a fast 422 would otherwise pull the percentiles down.
    if (r.ok) transactionDuration.add(r.durationMs, tags);
  }

  // Re-reads an item whose transaction failed and puts it back where its state says (see
  // placeAfterFailure); a failed re-read backs off (VuPool.recheckFailed).
  function recheck(itemBarcode, data) {
    const recover = { prefix: RECOVER_PREFIX, timeout: '30s' };
    const itemRes = vu.client.aside(api.itemsPage(`barcode==${cqlQuote(itemBarcode)}`, 1), recover);
    if (!itemRes.ok) return vu.pool.recheckFailed(itemBarcode, Date.now());
    const items = itemRes.value;
    // Only what answers the question: a target that ignored the query must not make the VU act on
    // another item or loan.
    const item = items.items.find((x) => x.barcode === itemBarcode) || null;
    let openLoans = [];
    if (item) {
      const loanRes = vu.client.aside(api.loansPage(`(itemId==${cqlId(item.id)} and status.name=="Open")`, 1), recover);
      if (!loanRes.ok) return vu.pool.recheckFailed(itemBarcode, Date.now());
      openLoans = loanRes.value.loans;
    }
    const p = placeAfterFailure({ item, openLoans, operatorId: data.operatorId, checkinPool: cfg.checkinPool });
    vu.pool.resolve(itemBarcode, p.place);
    if (p.place === 'drop') console.warn(`VU ${exec.vu.idInTest}: item ${itemBarcode} leaves the pool after a failed transaction: ${p.why}`);
  }

  // DATA=csv: the run's open loans through the API (the same selection as leftoverQueries), and its
  // items stranded Checked out without a loan.
  function leftoversViaApi(client, data, pool) {
    const out = [];
    const get = (req) => {
      const r = client.aside(req, { prefix: TEARDOWN_PREFIX });
      if (!r.ok) throw new Error(`listing what the run left checked out failed (${req.name} answered ${r.status}${r.detail ? ` ${r.detail}` : ''})`);
      return r.value;
    };
    for (let offset = 0; offset < 100000; offset += 100) {
      const loans = get(api.openLoansSince(data.servicePointId, data.startedAt, 100, offset)).loans || [];
      for (const l of loans) {
        const barcode = l.item && l.item.barcode;
        const by = l.metadata && l.metadata.createdByUserId;
        const open = l.status && l.status.name === 'Open' && l.checkoutServicePointId === data.servicePointId && Date.parse(l.loanDate) >= Date.parse(data.startedAt);
        if (open && barcode && pool.has(barcode) && (cfg.checkinPool === 'any' || by === data.operatorId)) out.push({ barcode, why: 'open loan' });
      }
      if (loans.length < 100) break;
    }
    const barcodes = Array.from(pool);
    for (let i = 0; i < barcodes.length; i += 50) {
      const any = barcodes.slice(i, i + 50).map((b) => `barcode==${cqlQuote(b)}`).join(' or ');
      const items = get(api.itemsPage(`(${any}) and status.name=="Checked out"`, 50)).items || [];
      for (const it of items.filter((x) => pool.has(x.barcode) && x.status && x.status.name === 'Checked out')) {
        const loans = get(api.loansPage(`(itemId==${cqlId(it.id)} and status.name=="Open")`, 1)).loans || [];
        const open = loans.filter((l) => l.itemId === it.id && l.status && l.status.name === 'Open');
        if (open.length === 0) out.push({ barcode: it.barcode, why: 'Checked out without a loan' });
      }
    }
    return out;
  }

  // Checks in what the run left checked out: its open loans and its items stranded without a loan
  // (VU state is gone by now, so they are found in the database, or through the API with
  // DATA=csv). Only the run's: items of its pools, loans since it started, and with
  // CHECKIN_POOL=own only the operator's. A check-out cancelled by Ctrl-C may still be committed
  // by the server after the first listing, so teardown lists again until nothing new has appeared
  // for the settle time (teardownSettleMs), and names by barcode what it could not check in.
  function teardown(data) {
    if (!data || !data.servicePointId) return;
    const t0 = Date.now();
    const { cut, settleMs } = teardownSettleMs({ scenarios: run.profile.scenarios, elapsedMs: t0 - Date.parse(data.startedAt), inFlightMs });
    const budgetMs = Math.max(30000, (durationMs(env.TEARDOWN_TIMEOUT || '10m') || 600000) - 30000);
    const deadline = t0 + Math.min(budgetMs, settleMs + 120000);
    // The second-Ctrl-C hint only where someone may press it: a load cut short (Ctrl-C, an abort)
    // keeps teardown looking for TEARDOWN_SETTLE; after a run that ended on its own it takes 2 s.
    console.log(
      cut
        ? `folio-perf: teardown: checking in what the run left checked out; the load was cut short, so it looks again for ${Math.round(settleMs / 1000)} s (TEARDOWN_SETTLE) for requests the server finishes late. ` +
            `A second Ctrl-C stops k6 at once and leaves them checked out: then ${RECOVERY}`
        : 'folio-perf: teardown: checking in what the run left checked out.',
    );
    const session = new Session(cfg, { token: platformOf(data.platform).token });
    const cause = session.login();
    if (cause) {
      console.error(`folio-perf: teardown cannot log in (${cause}); items may stay checked out: ${RECOVERY}`);
      return;
    }
    const client = makeClient({ cfg, session, think: null, log: failureLog('teardown') });
    // Only this runner's items: another runner's loans are its own teardown's.
    const pool = new Set(runItemBarcodes(runnerPools(parseSegment(data.segment)), data.slots, run.perVu));
    const list = () =>
      cfg.data.kind === 'db' ? dbData.runLeftoversFromDb(cfg, { servicePointId: data.servicePointId, sinceIso: data.startedAt, barcodes: pool }) : leftoversViaApi(client, data, pool);
    const tries = new Map(); // barcode -> failed check-ins
    const lastError = new Map(); // barcode -> why its check-in failed
    let checkedIn = 0;
    let late = 0; // found by a later listing than the first: committed after teardown began
    const seen = new Set();
    let listings = 0;
    let listError;
    let remaining;
    let quietSince = t0;
    for (;;) {
      let found;
      try {
        found = list();
        listings++;
        listError = null;
      } catch (e) {
        listError = e && e.message ? e.message : String(e);
      }
      if (found) {
        remaining = found.filter((x) => (tries.get(x.barcode) || 0) < TEARDOWN_TRIES);
        for (const { barcode } of found) {
          if (!seen.has(barcode) && listings > 1) late++;
          seen.add(barcode);
        }
        if (remaining.length > 0) quietSince = Date.now();
        for (const { barcode, why } of remaining) {
          const v = client.aside(api.checkInByBarcode({ itemBarcode: barcode, servicePointId: data.servicePointId, checkInDate: new Date().toISOString() }), { prefix: TEARDOWN_PREFIX });
          if (v.ok) {
            checkedIn++;
            tries.delete(barcode);
            lastError.delete(barcode);
          } else {
            tries.set(barcode, (tries.get(barcode) || 0) + 1);
            lastError.set(barcode, `${why}: check-in answered ${v.status}${v.detail ? ` ${v.detail}` : ''}`);
          }
        }
        if (remaining.length === 0 && Date.now() - quietSince >= settleMs) break;
      }
      if (Date.now() >= deadline) break;
      sleep(Math.max(0.2, Math.min(5000, settleMs, deadline - Date.now()) / 1000));
    }
    // What is still out: every item whose check-in failed and never succeeded afterwards.
    const left = new Map();
    for (const [b, n] of tries) if (n > 0) left.set(b, lastError.get(b));
    const secs = Math.round((Date.now() - t0) / 1000);
    console.log(`folio-perf: teardown checked in ${checkedIn} items the run left checked out (${listings} listings in ${secs} s; ${late} appeared after the first listing)`);
    if (listError) console.error(`folio-perf: teardown: ${listError}; items may stay checked out: ${RECOVERY}`);
    if (left.size > 0) {
      const named = Array.from(left, ([b, why]) => `${b} (${why})`);
      console.error(`folio-perf: teardown could not check in ${left.size} items: ${named.slice(0, 50).join(', ')}${named.length > 50 ? ', …' : ''}; ${RECOVERY}`);
    }
  }

  const handleSummary = makeHandleSummary(run, {
    cfg,
    meta: (data) => ({
      think: env.THINK || run.profile.think,
      distribution: `${run.distribution.checkIn}-${run.distribution.checkOut}`,
      preflight: run.preflight,
      baseline: env.BASELINE || null,
      // What setup found or was told: the platform and the UI release whose screens were replayed.
      platform: data.setup_data ? data.setup_data.platform || null : null,
      uiRelease: data.setup_data ? data.setup_data.uiRelease || null : null,
    }),
  });

  return { setup, iteration, teardown, handleSummary };
}
