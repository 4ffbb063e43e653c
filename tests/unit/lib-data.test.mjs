import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  partition, parseCsvColumn, poolQueries, vuSlots, checkPools, vuPool, VuPool, placeAfterFailure, vuShare, runItemBarcodes,
  leftoverQueries, teardownSettleMs, RECHECK_BASE_MS, RECHECK_MAX_MS,
} from '../../lib/cico/data.js';
import { buildProfile as build } from '../../lib/profiles.js';
import { PROFILES } from '../../lib/cico/profiles.js';

const buildProfile = (name, overrides = {}) => build(name, overrides, { profiles: PROFILES });

const range = (n) => Array.from({ length: n }, (_, i) => `b${i}`);

test('partition: disjoint slices that cover the pool, sizes within one', () => {
  for (const [n, parts] of [[0, 3], [1, 3], [10, 3], [100, 34], [372816, 34], [7, 7], [5, 8]]) {
    const pool = range(n);
    const seen = new Set();
    const sizes = [];
    for (let i = 0; i < parts; i++) {
      const s = partition(pool, parts, i);
      sizes.push(s.length);
      for (const x of s) {
        assert.ok(!seen.has(x), `${x} in two partitions (n=${n}, parts=${parts})`);
        seen.add(x);
      }
    }
    assert.equal(seen.size, n, `covers the pool (n=${n}, parts=${parts})`);
    assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1);
  }
  assert.throws(() => partition([], 0, 0), /positive integer/);
  assert.throws(() => partition([], 3, 3), /outside 0\.\.2/);
});

test('partition works on array-likes such as k6 SharedArray', () => {
  const like = { length: 4, 0: 'a', 1: 'b', 2: 'c', 3: 'd' };
  assert.deepEqual(partition(like, 2, 1), ['c', 'd']);
});

test("PTF's CSVs: first column, ; or , delimited, no blanks, comments, headers or duplicates", () => {
  assert.deepEqual(parseCsvColumn('barcode\n10001;x\r\n\n# note\n10002\n10001\n"10003",y\n'), ['10001', '10002', '10003']);
  assert.deepEqual(parseCsvColumn(''), []);
});

test('SQL: FOLIO schema names from the tenant, values only as parameters', () => {
  const q = poolQueries('fs09000000');
  assert.match(q.availableItems, /FROM fs09000000_mod_inventory_storage\.item i/);
  assert.match(q.availableItems, /fs09000000_mod_circulation_storage\.loan/);
  assert.match(q.availableItems, /LIMIT \$1/);
  assert.match(q.activeUsers, /fs09000000_mod_users\.users/);
  assert.match(q.activeUsers, /fs09000000_mod_feesfines\.manualblocks/);
  assert.match(q.checkedOutItems, /lower\(l\.jsonb->'status'->>'name'\) = 'open'/);
  // CHECKIN_POOL=own narrows to the loans folio-perf made: the operator's (RMB's metadata, the
  // username bound as $2), at the run's service point ($3), since the window's start ($4).
  assert.match(q.checkedOutItems, /\$2::text IS NULL OR \(l\.jsonb->'metadata'->>'createdByUserId' IN/);
  assert.match(q.checkedOutItems, /FROM fs09000000_mod_users\.users WHERE jsonb->>'username' = \$2::text/);
  assert.match(q.checkedOutItems, /checkoutServicePointId' = \$3::text/);
  assert.match(q.checkedOutItems, /\(l\.jsonb->>'loanDate'\)::timestamptz >= \$4::timestamptz/);
  assert.throws(() => poolQueries('x; drop table'), /invalid tenant/);
});

test('VU slots bound every __VU the profile can use', () => {
  assert.equal(vuSlots(buildProfile('demo').scenarios), 34);
  assert.equal(vuSlots(buildProfile('smoke').scenarios), 1);
  assert.equal(vuSlots(buildProfile('longevity').scenarios), 20);
});

test('pools: missing data is named', () => {
  assert.deepEqual(checkPools({ available: ['a'], checkedOut: [], users: ['u'] }), []);
  assert.deepEqual(checkPools({ available: [], checkedOut: ['c'], users: [] }), [
    'no available item to check out',
    'no active patron with a barcode and without a manual block',
  ]);
});

test('VU pool: items move between its own pools, so VUs never collide', () => {
  const pools = { available: range(10), checkedOut: ['c0', 'c1'], users: ['u0', 'u1', 'u2'] };
  const a = vuPool(pools, 2, 0);
  const b = vuPool(pools, 2, 1);
  assert.deepEqual(a.available, ['b0', 'b1', 'b2', 'b3', 'b4']);
  assert.deepEqual(b.checkedOut, ['c1']);
  assert.deepEqual(a.users, ['u0']);
  const job = a.takeForCheckOut();
  assert.deepEqual(job, { itemBarcode: 'b0', userBarcode: 'u0' });
  a.checkedOutOk('b0');
  assert.deepEqual(a.checkedOut, ['c0', 'b0']);
  const ci = a.takeForCheckIn();
  assert.equal(ci.itemBarcode, 'c0');
  a.checkedInOk('c0');
  assert.equal(a.available.at(-1), 'c0');
  const failed = a.takeForCheckIn();
  a.failed(failed.itemBarcode, 0);
  assert.ok(!a.available.includes(failed.itemBarcode) && !a.checkedOut.includes(failed.itemBarcode), 'a failed item leaves the pools until re-read');
  assert.deepEqual(a.suspects.map((x) => x.itemBarcode), [failed.itemBarcode]);
});

test('VU pool: falls back to the other transaction when one pool is empty', () => {
  const p = new VuPool({ available: ['a'], checkedOut: [], users: ['u'] });
  assert.equal(p.choose('check-in'), 'check-out');
  p.takeForCheckOut();
  p.checkedOutOk('a');
  assert.equal(p.choose('check-out'), 'check-in');
  p.takeForCheckIn();
  p.failed('a', 0);
  assert.equal(p.choose('check-out'), null);
  assert.equal(p.nextDueMs(), RECHECK_BASE_MS, 'an empty pool with a suspect waits for its re-read');
  // Users are shared when there are fewer than VUs.
  assert.deepEqual(vuPool({ available: ['a', 'b'], checkedOut: [], users: ['u'] }, 2, 1).users, ['u']);
});

test('VU pool: a failed item comes back once its state is known, with backoff while the target is down', () => {
  const p = new VuPool({ available: ['a', 'b'], checkedOut: [], users: ['u'] });
  const t0 = 1_000_000;
  for (const x of ['a', 'b']) {
    p.takeForCheckOut();
    p.failed(x, t0);
  }
  assert.equal(p.choose('check-out'), null, 'both items wait to be re-read');
  assert.equal(p.dueSuspect(t0), null, 'not re-read at once');
  assert.equal(p.dueSuspect(t0 + RECHECK_BASE_MS), 'a');
  // The target is still down: each failed re-read doubles the wait, up to the cap.
  let t = t0 + RECHECK_BASE_MS;
  const waits = [];
  for (let i = 0; i < 8; i++) {
    p.recheckFailed('a', t);
    const due = p.suspects.find((x) => x.itemBarcode === 'a').dueMs;
    waits.push(due - t);
    t = due;
  }
  assert.deepEqual(waits.slice(0, 4), [2, 4, 8, 16].map((k) => k * RECHECK_BASE_MS));
  assert.ok(waits.every((w, i) => i === 0 || w >= waits[i - 1]) && Math.max(...waits) === RECHECK_MAX_MS);
  assert.equal(p.dueSuspect(t0 + RECHECK_BASE_MS), 'b', 'a backed-off item does not block the others');
  p.resolve('b', 'checkedOut');
  p.resolve('a', 'available');
  assert.deepEqual([p.available, p.checkedOut, p.suspects, p.dropped], [['a'], ['b'], [], 0]);
  assert.equal(p.choose('check-out'), 'check-out', 'the VU loads again');
  p.takeForCheckOut();
  p.failed('a', t);
  p.resolve('a', 'drop');
  assert.equal(p.dropped, 1);
  assert.equal(p.nextDueMs(), null);
});

test('after a failure an item goes where its state says, and never takes another account\'s loan', () => {
  const me = 'op-1';
  const loanBy = (id, extra = {}) => [{ id: 'l', itemId: 'i1', status: { name: 'Open' }, metadata: { createdByUserId: id }, ...extra }];
  const item = (name) => ({ id: 'i1', status: { name } });
  const cases = [
    [{ item: null, openLoans: [] }, 'drop'],
    [{ item: item('Available'), openLoans: [] }, 'available'],
    // The server committed the check-out whose answer was lost.
    [{ item: item('Checked out'), openLoans: loanBy(me) }, 'checkedOut'],
    // A check-in whose undo failed: Checked out without a loan; a check-in repairs it.
    [{ item: item('Checked out'), openLoans: [] }, 'checkedOut'],
    [{ item: item('Checked out'), openLoans: loanBy('someone-else') }, 'drop'],
    [{ item: item('Checked out'), openLoans: loanBy('someone-else'), checkinPool: 'any' }, 'checkedOut'],
    [{ item: item('In transit'), openLoans: [] }, 'drop'],
    // A lookup whose query was ignored (another item's loan, a closed one) proves nothing.
    [{ item: item('Checked out'), openLoans: loanBy(me, { itemId: 'i2' }) }, 'drop'],
    [{ item: item('Checked out'), openLoans: loanBy(me, { status: { name: 'Closed' } }) }, 'drop'],
  ];
  for (const [input, want] of cases) {
    const got = placeAfterFailure({ operatorId: me, checkinPool: 'own', ...input });
    assert.equal(got.place, want, JSON.stringify(input));
    assert.ok(got.why);
  }
});

test('the run\'s items are exactly the union of the VUs\' shares', () => {
  const source = { available: range(23), checkedOut: ['c0', 'c1', 'c2'], users: ['u0'] };
  const shares = [0, 1, 2].map((i) => vuShare(source, 3, i, 5));
  assert.deepEqual(shares[0].available, ['b0', 'b1', 'b2', 'b3', 'b4'], 'capped at perVu');
  assert.deepEqual(shares[2].users, ['u0'], 'fewer users than slots: shared');
  const all = runItemBarcodes(source, 3, 5);
  assert.deepEqual(all.sort(), shares.flatMap((s) => [...s.available, ...s.checkedOut]).sort());
  assert.ok(!all.includes('b22'), 'an item beyond every cap is not the run\'s');
});

test('teardown SQL: the run\'s loans only (pool, window, operator), and stranded items', () => {
  const q = leftoverQueries('fs09000000');
  assert.match(q.runOpenLoans, /checkoutServicePointId' = \$1/);
  assert.match(q.runOpenLoans, /loanDate'\)::timestamptz >= \$2::timestamptz/);
  assert.match(q.runOpenLoans, /IN \(SELECT jsonb_array_elements_text\(\$3::jsonb\)\)/);
  assert.match(q.runOpenLoans, /\$4::text IS NULL OR l\.jsonb->'metadata'->>'createdByUserId' IN/);
  assert.match(q.strandedItems, /'Checked out'/);
  assert.match(q.strandedItems, /NOT EXISTS/);
  assert.throws(() => leftoverQueries('X'), /invalid tenant/);
});

test('teardown waits for cut-off requests only when the load was cut short', () => {
  const scenarios = buildProfile('smoke', { duration: '60s' }).scenarios; // 60 s, graceful stop 10 s
  const settle = (elapsedMs) => teardownSettleMs({ scenarios, elapsedMs, inFlightMs: 60000 });
  assert.deepEqual(settle(20000), { cut: true, settleMs: 60000 }, 'Ctrl-C at 20 s');
  assert.deepEqual(settle(61000), { cut: false, settleMs: 2000 }, 'ended on its own, iterations finished in the graceful stop');
  assert.deepEqual(settle(70000), { cut: true, settleMs: 60000 }, 'iterations stopped at the end of the graceful stop');
  const demo = buildProfile('demo').scenarios; // the last step starts at 3 x (60 + 15) s
  assert.equal(teardownSettleMs({ scenarios: demo, elapsedMs: 100000, inFlightMs: 5 }).cut, true);
  assert.equal(teardownSettleMs({ scenarios: demo, elapsedMs: 286000, inFlightMs: 5 }).cut, false);
});
