// The two UI transactions of PTF's Orchid CICO plan, request by request and in order
// (folio-org/perf-testing : workflows-scripts/circulation/check-in-check-out/Orchid/), with the think timers where PTF put them.
// Pure: the caller passes a `client` with
//   call(request) -> { ok, durationMs, value }   sends one request and applies its rule
//   think(timer)                                 waits before the next request (k6: sleep)
// so the same code runs in k6 (lib/k6/cico.js) and under node --test with a recording client.
// A transaction's time is the sum of its requests' times, think time excluded (JMeter's
// TransactionController with includeTimers=false, what the release reports call check-out time).

import * as api from './api.js';
import { preflight, cqlId, cqlQuote } from '../folio.js';

export const CHECK_OUT = 'check-out';
export const CHECK_IN = 'check-in';

// PTF's uniform random timers: constant + U[0, range) ms (lib/think.js). `offset` marks the
// timers whose constant PTF wrote as "<constant> + ${thinktime_offset}".
const T = (constant, range, offset = true) => ({ constant, range, offset });

/**
 * DISTRIBUTION "43-57" (PTF's default): percent of check-in, then check-out; must add up to 100.
 * Returns a selector mapping a draw r in [0,1) to a transaction, as PTF's branch selector does
 * (a number 1..100 against the cumulative percentages, index 0 = check-in).
 */
export function parseDistribution(text) {
  const t = text === undefined || text === '' ? '43-57' : String(text).trim();
  const m = /^(\d{1,3})-(\d{1,3})$/.exec(t);
  if (!m) throw new Error(`DISTRIBUTION "${text}" is not <check-in %>-<check-out %>; fix: use e.g. DISTRIBUTION=43-57`);
  const checkIn = Number(m[1]);
  const checkOut = Number(m[2]);
  if (checkIn + checkOut !== 100) throw new Error(`DISTRIBUTION "${text}" adds up to ${checkIn + checkOut}, not 100; fix: use e.g. DISTRIBUTION=43-57`);
  return { checkIn, checkOut };
}

export function selectTransaction(dist, r) {
  const n = Math.floor(r * 100) + 1; // 1..100 as PTF's Groovy selector
  return n <= dist.checkIn ? CHECK_IN : CHECK_OUT;
}

// input.now may be a function, so the date is taken when the POST is sent (after think time).
function nowOf(input) {
  return typeof input.now === 'function' ? input.now() : input.now;
}

// Runs the steps; stops at the first failed request (JMeter: "on sampler error: start next loop").
function runner(client, opts) {
  let total = 0;
  let failed = null;
  const call = (request) => {
    if (failed) return null;
    if (opts.preflight) {
      const pre = preflight(request);
      const p = client.call(pre);
      total += p.durationMs || 0;
      if (!p.ok) {
        failed = pre.name;
        return null;
      }
    }
    const r = client.call(request);
    total += r.durationMs || 0;
    if (!r.ok) {
      failed = request.name;
      return null;
    }
    return r.value === undefined ? true : r.value;
  };
  const think = (timer) => {
    if (!failed) client.think(timer);
  };
  const result = (extra) => ({ ok: !failed, durationMs: total, failedAt: failed, ...extra });
  return { call, think, result, failed: () => failed };
}

/**
 * One check-out at the check-out screen (Orchid plan).
 * input: { userBarcode, itemBarcode, servicePointId, now: ISO string or () => ISO string }
 */
export function checkOut(client, input, opts = {}) {
  const s = runner(client, opts);
  s.call(api.configEntries('(module==CHECKOUT and configName==other_settings)'));
  s.call(api.configEntries('(module==USERS and configName==profile_pictures)'));
  s.think(T(1000, 2000));
  s.call(api.groups());
  s.think(T(1000, 3000, false));
  const patron = s.call(api.findPatron(input.userBarcode));
  if (patron) {
    const uid = patron.id;
    s.call(api.groups(`(id==${cqlId(patron.patronGroup)})`));
    s.call(api.accounts(`(userId==${uid} and status.name<>Closed)`, 100));
    s.call(api.loans(`(userId==${uid} and status.name<>Closed)`, 1));
    s.call(api.requests(`(requesterId==${uid} and status=="Open")`, 100));
    // PTF sends the literal "query=(...)" as the query value; FOLIO's CQL parser accepts it.
    s.call(api.proxiesFor(`query=(userId==${uid})`, 80));
    s.call(api.proxiesFor(`query=(proxyUserId==${uid})`, 80));
    s.call(api.noteLinks(uid));
    s.call(api.manualBlocks(uid));
    s.call(api.automatedPatronBlocks(uid));
    s.call(api.proxiesFor(`query=(proxyUserId==${uid})`));
    s.think(T(1000, 2000));
    s.call(api.requests(`(requesterId==${uid} and pickupServicePointId=${input.servicePointId} and status=="Open - Awaiting pickup")`));
    s.call(api.itemByBarcode(input.itemBarcode, 40));
    const loan = s.call(
      api.checkOutByBarcode({
        itemBarcode: input.itemBarcode,
        userBarcode: input.userBarcode,
        servicePointId: input.servicePointId,
        loanDate: nowOf(input),
      }),
    );
    if (loan) {
      const borrower = loan.userId || uid;
      s.call(api.loans(`(userId==${borrower} and status.name<>Closed)`, 1));
      s.call(api.automatedPatronBlocks(uid));
      s.think(T(5000, 2000));
      s.call(api.requests(`(requesterId==${borrower} and status=="Open")`, 100));
    }
  }
  return s.result({ transaction: CHECK_OUT, itemBarcode: input.itemBarcode });
}

/**
 * One check-in at the check-in screen (Orchid plan). PTF checks in at a random service point from
 * GET /service-points; here it is the run's service point, so items come back Available to the
 * VU's pool instead of going In transit (the request sequence is unchanged).
 * input: { itemBarcode, servicePointId, now: ISO string or () => ISO string }
 */
export function checkIn(client, input, opts = {}) {
  const s = runner(client, opts);
  s.call(api.groups());
  s.call(api.usersPage());
  s.think(T(1000, 2000));
  s.call(api.staffSlips());
  s.call(api.servicePoints());
  s.call(api.configEntries('(module=CHECKOUT and configName=other_settings)'));
  const item = s.call(api.itemByBarcode(input.itemBarcode, 1000));
  const res = s.call(api.checkInByBarcode({ itemBarcode: input.itemBarcode, servicePointId: input.servicePointId, checkInDate: nowOf(input) }));
  if (res) {
    const itemId = res.itemId || (item && item.id);
    s.think(T(5000, 2000));
    s.call(api.requests(`(itemId==${itemId} and (status=="Open - Awaiting pickup" or status=="Open - Awaiting delivery"))`));
    // Without a loan (legal for an item that had none) PTF queried with "NOT_FOUND"; those calls
    // cannot match anything, so they are skipped rather than sent with a fake id.
    if (res.loanId) {
      s.think(T(1000, 3000));
      s.call(api.accounts(`loanId==${cqlQuote(res.loanId)}`));
      if (res.lostItemPolicyId) {
        s.think(T(5000, 2000));
        s.call(api.lostItemFeesPolicies(res.lostItemPolicyId));
      }
      s.think(T(5000, 2000));
      s.call(api.accounts(`(userId==${res.userId} and itemId==${itemId}) AND (status.name=="Open" OR status.name=="Closed")`));
      s.think(T(1000, 2000));
      s.call(api.accounts(`(userId==${res.userId} and itemId==${itemId} and loanId==${res.loanId}) and status.name=="Open"`));
    }
  }
  return s.result({ transaction: CHECK_IN, itemBarcode: input.itemBarcode, hadLoan: !!(res && res.loanId) });
}
