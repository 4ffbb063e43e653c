// Test data pools: which items a VU may check out or check in, which patrons it serves.
// Pure: the SQL text, CSV parsing, partitioning and the per-VU pool live here; lib/k6/cico-data.js runs
// the SQL through k6/x/sql or loads the CSVs, into SharedArrays either way.
//
// VUs never share an item: each VU gets a disjoint slice of the available and checked-out pools,
// and an item it checks out moves to its own check-in pool (and back on check-in). So on a healthy
// target no check-out hits "Item is already checked out" and functional errors stay at zero.

import { durationMs } from '../profiles.js';

/**
 * The index-th of `parts` contiguous, disjoint slices of `pool`; together they cover it exactly.
 * Sizes differ by at most one.
 */
export function partition(pool, parts, index) {
  if (!Number.isInteger(parts) || parts < 1) throw new Error(`partition: parts must be a positive integer, got ${parts}`);
  if (!Number.isInteger(index) || index < 0 || index >= parts) throw new Error(`partition: index ${index} outside 0..${parts - 1}`);
  const n = pool.length;
  const from = Math.floor((index * n) / parts);
  const to = Math.floor(((index + 1) * n) / parts);
  const out = [];
  for (let i = from; i < to; i++) out.push(pool[i]);
  return out;
}

/**
 * PTF's CSVs (available.csv, checked_out.csv, user_barcodes.csv): one value per line, `;` or `,`
 * delimited (first column used), no header. Blank lines, `#` comments and a header named like
 * "barcode" are skipped; duplicates are dropped so partitions stay disjoint.
 */
export function parseCsvColumn(text) {
  const seen = new Set();
  const out = [];
  for (const raw of String(text).split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const v = line.split(/[;,]/)[0].trim().replace(/^"(.*)"$/, '$1');
    if (v === '' || /^(item_?|user_?)?barcodes?$/i.test(v)) continue;
    if (seen.has(v)) continue;
    seen.add(v);
    out.push(v);
  }
  return out;
}

// Tenant ids are validated by lib/config.js (lower-case, digits, _), so they are safe in a schema
// name; schema names cannot be bound parameters.
function schema(tenant, module) {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(tenant)) throw new Error(`invalid tenant id "${tenant}"`);
  return `${tenant}_${module}`;
}

/**
 * SQL against FOLIO's own tables (RMB layout: id uuid, jsonb; raml-module-builder : templates/db_scripts/create.ftl). Each query takes
 * its limit as $1 (and further arguments where noted), and returns one column.
 */
export function poolQueries(tenant) {
  const inv = schema(tenant, 'mod_inventory_storage');
  const circ = schema(tenant, 'mod_circulation_storage');
  const users = schema(tenant, 'mod_users');
  const fees = schema(tenant, 'mod_feesfines');
  return {
    // The service point most items are shelved under: checking in there leaves items Available
    // (elsewhere FOLIO puts them In transit and they leave the pool).
    homeServicePoint: `SELECT l.jsonb->>'primaryServicePoint' AS id, count(*) AS n
      FROM ${inv}.item i JOIN ${inv}.location l ON l.id::text = i.jsonb->>'effectiveLocationId'
      WHERE i.jsonb->'status'->>'name' = 'Available' AND l.jsonb->>'primaryServicePoint' IS NOT NULL
      GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`,
    anyServicePoint: `SELECT id::text AS id FROM ${inv}.service_point ORDER BY jsonb->>'code', id LIMIT 1`,
    servicePointExists: `SELECT id::text AS id FROM ${inv}.service_point WHERE id::text = $1`,
    // Available, with a barcode, no open loan, and (when $2 is given) shelved at that service point.
    availableItems: `SELECT i.jsonb->>'barcode' AS barcode FROM ${inv}.item i
      WHERE i.jsonb->'status'->>'name' = 'Available' AND coalesce(i.jsonb->>'barcode', '') <> ''
        AND NOT EXISTS (SELECT 1 FROM ${circ}.loan l WHERE l.jsonb->>'itemId' = i.id::text AND lower(l.jsonb->'status'->>'name') = 'open')
        AND ($2::text IS NULL OR i.jsonb->>'effectiveLocationId' IN
             (SELECT id::text FROM ${inv}.location WHERE jsonb->>'primaryServicePoint' = $2::text))
      ORDER BY i.jsonb->>'barcode' LIMIT $1`,
    // Items with exactly the one open loan FOLIO allows, e.g. PTF's seeded loans. With $2 NULL
    // (CHECKIN_POOL=any) every open loan, as PTF's checked_out.csv. With $2 (CHECKIN_POOL=own: the
    // operator's username) only the loans folio-perf itself made, by what FOLIO keeps of a
    // check-out by barcode: the account that made it (RMB's metadata.createdByUserId), the service
    // point it was made at ($3, checkoutServicePointId) and its loanDate, which the scripts send,
    // since $4 (CHECKIN_WINDOW before the run). The request takes no note or comment a run could
    // leave (mod-circulation : CheckOutByBarcodeRequest.java reads itemBarcode, userBarcode,
    // proxyUserBarcode, servicePointId, loanDate and overrideBlocks), so with a shared admin
    // account a colleague's loan at the same desk within the window would still match: the
    // operator should be an account of folio-perf's own (env/folio.example.json).
    checkedOutItems: `SELECT i.jsonb->>'barcode' AS barcode FROM ${circ}.loan l JOIN ${inv}.item i ON i.id::text = l.jsonb->>'itemId'
      WHERE lower(l.jsonb->'status'->>'name') = 'open' AND coalesce(i.jsonb->>'barcode', '') <> ''
        AND ($2::text IS NULL OR (l.jsonb->'metadata'->>'createdByUserId' IN
               (SELECT id::text FROM ${users}.users WHERE jsonb->>'username' = $2::text)
             AND l.jsonb->>'checkoutServicePointId' = $3::text
             AND (l.jsonb->>'loanDate')::timestamptz >= $4::timestamptz))
      ORDER BY i.jsonb->>'barcode' LIMIT $1`,
    // Active patrons with a barcode and no manual block (automated blocks are computed, not
    // stored), other than the operator ($2) the script logs in as.
    activeUsers: `SELECT u.jsonb->>'barcode' AS barcode FROM ${users}.users u
      WHERE u.jsonb->>'active' = 'true' AND coalesce(u.jsonb->>'barcode', '') <> ''
        AND coalesce(u.jsonb->>'username', '') <> $2
        AND NOT EXISTS (SELECT 1 FROM ${fees}.manualblocks b WHERE b.jsonb->>'userId' = u.id::text)
      ORDER BY u.jsonb->>'barcode' LIMIT $1`,
  };
}

/**
 * What teardown looks for (see lib/k6/cico.js): the run's item barcodes come as a JSON array ($3 /
 * $1), since the SQL driver binds scalars only.
 * - runOpenLoans: open loans made at the run's service point ($1) since the run started ($2, the
 *   loanDate the scripts send, i.e. k6's clock) on an item of the run's pools ($3); with $4 (the
 *   operator's username, CHECKIN_POOL=own) only those that account created (RMB's
 *   metadata.createdByUserId). A loan another account makes during the run on another item, or on
 *   one of these items, is never touched.
 * - strandedItems: items of the run's pools ($1) that are Checked out without an open loan, the
 *   state a check-in leaves when its item update and then its undo failed. A check-in by barcode
 *   (legal without a loan) makes them Available; there is no loan to close, so nobody's loan is
 *   touched.
 */
export function leftoverQueries(tenant) {
  const inv = schema(tenant, 'mod_inventory_storage');
  const circ = schema(tenant, 'mod_circulation_storage');
  const users = schema(tenant, 'mod_users');
  return {
    runOpenLoans: `SELECT i.jsonb->>'barcode' AS barcode FROM ${circ}.loan l
        JOIN ${inv}.item i ON i.id::text = l.jsonb->>'itemId'
       WHERE lower(l.jsonb->'status'->>'name') = 'open' AND l.jsonb->>'checkoutServicePointId' = $1
         AND (l.jsonb->>'loanDate')::timestamptz >= $2::timestamptz
         AND i.jsonb->>'barcode' IN (SELECT jsonb_array_elements_text($3::jsonb))
         AND ($4::text IS NULL OR l.jsonb->'metadata'->>'createdByUserId' IN
              (SELECT id::text FROM ${users}.users WHERE jsonb->>'username' = $4::text))
       ORDER BY 1`,
    strandedItems: `SELECT i.jsonb->>'barcode' AS barcode FROM ${inv}.item i
       WHERE i.jsonb->>'barcode' IN (SELECT jsonb_array_elements_text($1::jsonb))
         AND i.jsonb->'status'->>'name' = 'Checked out'
         AND NOT EXISTS (SELECT 1 FROM ${circ}.loan l WHERE l.jsonb->>'itemId' = i.id::text AND lower(l.jsonb->'status'->>'name') = 'open')
       ORDER BY 1`,
  };
}

/**
 * How long teardown keeps looking for loans after its first pass. When the load was cut short (an
 * interrupt, an abort, or iterations stopped at the end of their graceful stop) requests were
 * cancelled on the client while the server may still commit them: a cancelled check-out's loan
 * appears after teardown's first listing. Any request k6 would have waited for ends within the
 * per-request timeout (inFlightMs), so teardown looks again until that long has passed with nothing
 * new. A run that ended on its own had no request in flight: a short second look suffices.
 * scenarios: k6's (startTime, duration, gracefulStop); elapsedMs: since the load started.
 */
export function teardownSettleMs({ scenarios, elapsedMs, inFlightMs, shortMs = 2000 }) {
  let end = 0;
  let grace = 0;
  for (const s of Object.values(scenarios)) {
    const e = (durationMs(s.startTime || '0s') || 0) + (durationMs(s.duration) || 0);
    if (e >= end) {
      end = e;
      grace = durationMs(s.gracefulStop || '30s') || 0;
    }
  }
  const cut = elapsedMs < end - 1000 || elapsedMs >= end + grace - 500;
  return { cut, settleMs: cut ? inFlightMs : shortMs };
}

/**
 * How many VU slots to partition for: k6 numbers VUs 1..N across all scenarios, and never
 * initialises more than the scenarios' VUs added up, so that sum is a safe upper bound of __VU.
 */
export function vuSlots(scenarios) {
  let n = 0;
  for (const s of Object.values(scenarios)) n += s.vus || s.maxVUs || Math.max(0, ...(s.stages || []).map((x) => x.target)) || 0;
  return Math.max(1, n);
}

// Check-out is what the run measures, so it needs available items and patrons; items on loan are
// optional (a VU checks in what it checked out).
export function checkPools(pools) {
  const problems = [];
  if (!pools.available || pools.available.length === 0) problems.push('no available item to check out');
  if (!pools.users || pools.users.length === 0) problems.push('no active patron with a barcode and without a manual block');
  return problems;
}

// Re-reading an item whose transaction failed: first after RECHECK_BASE_MS, then twice as long
// after each failed re-read, up to RECHECK_MAX_MS, so a dead target gets one request per VU every
// half minute rather than a VU's whole pool at once.
export const RECHECK_BASE_MS = 1000;
export const RECHECK_MAX_MS = 30000;

/**
 * One VU's pools. Items move between `available` and `checkedOut` as the VU checks them out and in.
 * An item whose transaction failed is in an unknown state (the server may have committed the
 * request whose answer was lost): it waits in `suspects` until the VU re-reads it
 * (`dueSuspect`), then goes back to the pool its state says (`resolve`), or is dropped when it is
 * no longer the run's to touch. So a fault of a few seconds costs a few failed transactions, not
 * the VU's whole pool for the rest of the run.
 */
export class VuPool {
  constructor({ available, checkedOut, users }) {
    this.available = available.slice();
    this.checkedOut = checkedOut.slice();
    this.users = users.slice();
    this.nextUser = 0;
    this.dropped = 0;
    this.suspects = []; // { itemBarcode, attempts, dueMs }
  }

  // The transaction to run, given the drawn one: fall back to the other when its pool is empty.
  choose(wanted) {
    if (wanted === 'check-in' && this.checkedOut.length === 0 && this.available.length > 0) return 'check-out';
    if (wanted === 'check-out' && this.available.length === 0 && this.checkedOut.length > 0) return 'check-in';
    if (this.available.length === 0 && this.checkedOut.length === 0) return null;
    return wanted;
  }

  takeForCheckOut() {
    if (this.available.length === 0 || this.users.length === 0) return null;
    const itemBarcode = this.available.shift();
    const userBarcode = this.users[this.nextUser % this.users.length];
    this.nextUser++;
    return { itemBarcode, userBarcode };
  }

  takeForCheckIn() {
    if (this.checkedOut.length === 0) return null;
    return { itemBarcode: this.checkedOut.shift() };
  }

  checkedOutOk(itemBarcode) {
    this.checkedOut.push(itemBarcode);
  }

  checkedInOk(itemBarcode) {
    this.available.push(itemBarcode);
  }

  // The transaction of itemBarcode failed at nowMs: re-read it later.
  failed(itemBarcode, nowMs) {
    this.suspects.push({ itemBarcode, attempts: 0, dueMs: nowMs + RECHECK_BASE_MS });
  }

  // The suspect whose re-read is due at nowMs (the longest waiting first), or null.
  dueSuspect(nowMs) {
    let best = null;
    for (const s of this.suspects) if (s.dueMs <= nowMs && (best === null || s.dueMs < best.dueMs)) best = s;
    return best ? best.itemBarcode : null;
  }

  // When the next re-read is due (ms), or null without suspects.
  nextDueMs() {
    let t = null;
    for (const s of this.suspects) if (t === null || s.dueMs < t) t = s.dueMs;
    return t;
  }

  // The re-read failed too (the target is still down): back off.
  recheckFailed(itemBarcode, nowMs) {
    const s = this.suspects.find((x) => x.itemBarcode === itemBarcode);
    if (!s) return;
    s.attempts++;
    s.dueMs = nowMs + Math.min(RECHECK_MAX_MS, RECHECK_BASE_MS * 2 ** s.attempts);
  }

  // The item's state is known: place is 'available', 'checkedOut' or 'drop' (see placeAfterFailure).
  resolve(itemBarcode, place) {
    const i = this.suspects.findIndex((x) => x.itemBarcode === itemBarcode);
    if (i < 0) return;
    this.suspects.splice(i, 1);
    if (place === 'available') this.available.push(itemBarcode);
    else if (place === 'checkedOut') this.checkedOut.push(itemBarcode);
    else this.dropped++;
  }
}

/**
 * Where an item goes after a failed transaction, from what the target says now.
 * item: the inventory item ({ status: { name } }) or null when not found; openLoans: its open
 * loans; operatorId: the run's operator (user id); checkinPool: 'own' or 'any'.
 * Returns { place: 'available' | 'checkedOut' | 'drop', why }.
 */
export function placeAfterFailure({ item, openLoans, operatorId, checkinPool }) {
  if (!item) return { place: 'drop', why: 'the item is gone' };
  const status = item.status && item.status.name;
  // Only loans that answer the question count (an item's open loans): a target that ignored the
  // query must not make a loan look absent, or another item's loan look like this one's.
  const all = openLoans || [];
  const open = all.filter((l) => l.itemId === item.id && l.status && l.status.name === 'Open');
  if (open.length !== all.length) return { place: 'drop', why: 'the loans lookup answered loans of other items or not open' };
  if (open.length > 0) {
    const by = open[0].metadata && open[0].metadata.createdByUserId;
    // A loan another account made on the run's item is not the run's to check in.
    if (checkinPool !== 'any' && by !== operatorId) return { place: 'drop', why: `its open loan was created by another account (${by || 'unknown'})` };
    return { place: 'checkedOut', why: 'it has an open loan' };
  }
  if (status === 'Available') return { place: 'available', why: 'it is Available' };
  // Checked out without an open loan is the half state of an interrupted compensation: a check-in
  // (legal without a loan) makes it Available again.
  if (status === 'Checked out') return { place: 'checkedOut', why: 'it is Checked out without an open loan' };
  return { place: 'drop', why: `its status is ${status}` };
}

/**
 * One VU's share of the run's pools, capped at perVu items per pool (users are shared when there
 * are fewer than slots). teardown takes the union of every slot's share (runItemBarcodes): the
 * only items the run can have touched.
 */
export function vuShare(source, slots, index, perVu) {
  const cap = (a) => (a.length > perVu ? a.slice(0, perVu) : a);
  return {
    available: cap(partition(source.available, slots, index)),
    checkedOut: cap(partition(source.checkedOut, slots, index)),
    users: source.users.length >= slots ? cap(partition(source.users, slots, index)) : Array.from(source.users),
  };
}

// Every item barcode some VU's share holds: what teardown may check in.
export function runItemBarcodes(source, slots, perVu) {
  const out = [];
  for (let i = 0; i < slots; i++) {
    const s = vuShare(source, slots, i, perVu);
    for (const b of s.available) out.push(b);
    for (const b of s.checkedOut) out.push(b);
  }
  return out;
}

// A VU's share of the run's pools. Users are partitioned only when there are enough of them;
// patrons are not exclusive (a real desk serves one patron from several terminals).
export function vuPool(pools, slots, vuIndex) {
  const users = pools.users.length >= slots ? partition(pools.users, slots, vuIndex) : pools.users;
  return new VuPool({
    available: partition(pools.available, slots, vuIndex),
    checkedOut: partition(pools.checkedOut, slots, vuIndex),
    users: users.length ? users : pools.users,
  });
}
