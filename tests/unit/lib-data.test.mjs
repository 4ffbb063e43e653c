import { test } from 'node:test';
import assert from 'node:assert/strict';
import { partition, parseCsvColumn, poolQueries, vuSlots, checkPools, vuPool, VuPool } from '../../lib/data.js';
import { buildProfile } from '../../lib/profiles.js';

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
  // CHECKIN_POOL=own narrows to the operator's loans by RMB's metadata, the username bound as $2.
  assert.match(q.checkedOutItems, /\$2::text IS NULL OR l\.jsonb->'metadata'->>'createdByUserId' IN/);
  assert.match(q.checkedOutItems, /FROM fs09000000_mod_users\.users WHERE jsonb->>'username' = \$2::text/);
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
  a.takeForCheckIn();
  a.failed();
  assert.equal(a.dropped, 1);
  assert.ok(!a.available.includes('b0') && !a.checkedOut.includes('b0'), 'a failed item leaves the pools');
});

test('VU pool: falls back to the other transaction when one pool is empty', () => {
  const p = new VuPool({ available: ['a'], checkedOut: [], users: ['u'] });
  assert.equal(p.choose('check-in'), 'check-out');
  p.takeForCheckOut();
  p.checkedOutOk('a');
  assert.equal(p.choose('check-out'), 'check-in');
  p.takeForCheckIn();
  p.failed();
  assert.equal(p.choose('check-out'), null);
  // Users are shared when there are fewer than VUs.
  assert.deepEqual(vuPool({ available: ['a', 'b'], checkedOut: [], users: ['u'] }, 2, 1).users, ['u']);
});
