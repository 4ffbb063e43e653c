// The two UI transactions, check-in and check-out, and PTF's mix of them (DISTRIBUTION). The
// requests of each come from the UI release replayed (lib/cico/releases.js: PTF's Orchid plan,
// Sunflower's and Trillium's screens), through one interpreter (lib/cico/sequence.js). Pure.

import { runSequence } from './sequence.js';
import { uiRelease } from './releases.js';

export const CHECK_OUT = 'check-out';
export const CHECK_IN = 'check-in';

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

// A release given by name or as its descriptor (lib/cico/releases.js).
const releaseOf = (release) => (typeof release === 'string' ? uiRelease(release) : release);

/**
 * One check-out at the check-out screen of a UI release (default Orchid, PTF's plan).
 * input: { userBarcode, itemBarcode, servicePointId, now: ISO string or () => ISO string }
 */
export function checkOut(client, input, opts = {}, release = 'orchid') {
  const r = runSequence(client, releaseOf(release).checkOut, input, opts);
  return { ok: r.ok, durationMs: r.durationMs, failedAt: r.failedAt, transaction: CHECK_OUT, itemBarcode: input.itemBarcode };
}

/**
 * One check-in at the check-in screen of a UI release (default Orchid).
 * input: { itemBarcode, servicePointId, sessionId (ui-checkin 11+), now }
 */
export function checkIn(client, input, opts = {}, release = 'orchid') {
  const r = runSequence(client, releaseOf(release).checkIn, input, opts);
  const checkin = r.ctx.checkin;
  return { ok: r.ok, durationMs: r.durationMs, failedAt: r.failedAt, transaction: CHECK_IN, itemBarcode: input.itemBarcode, hadLoan: Boolean(checkin && checkin !== true && checkin.loanId) };
}
