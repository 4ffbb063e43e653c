import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSegment, segmentPools, segmentSlots, inSegment, segmentPoint, fnv1a32 } from '../../lib/segments.js';
import { vuShare, runItemBarcodes, vuSlots } from '../../lib/cico/data.js';
import { buildProfile as build } from '../../lib/profiles.js';
import { PROFILES } from '../../lib/cico/profiles.js';

const buildProfile = (name, overrides = {}) => build(name, overrides, { profiles: PROFILES });

const range = (n, p = 'b') => Array.from({ length: n }, (_, i) => `${p}${String(i).padStart(6, '0')}`);
// The segments k6-operator and make run RUNNERS=N hand to N runners: (i-1)/N:i/N.
const sequence = (n) => Array.from({ length: n }, (_, i) => parseSegment(`${i}/${n}:${i + 1}/${n}`) || { from: 0, to: 1, text: '0:1' });

test('segment: k6 notation parsed; no segment or the whole run is null', () => {
  assert.deepEqual(parseSegment('1/2:1'), { from: 0.5, to: 1, text: '1/2:1' });
  assert.deepEqual(parseSegment('0:1/4'), { from: 0, to: 0.25, text: '0:1/4' });
  assert.deepEqual(parseSegment('1/4'), { from: 0, to: 0.25, text: '1/4' });
  assert.deepEqual(parseSegment('25%:50%'), { from: 0.25, to: 0.5, text: '25%:50%' });
  assert.deepEqual(parseSegment('0.2:2/3'), { from: 0.2, to: 2 / 3, text: '0.2:2/3' });
  for (const whole of [null, undefined, '', '0:1', '1', '0:100%']) assert.equal(parseSegment(whole), null, String(whole));
  assert.throws(() => parseSegment('1/2:1/4'), /start < end/);
  assert.throws(() => parseSegment('a:b'), /not a fraction/);
  assert.throws(() => parseSegment('0:1:2'), /more than one/);
  assert.throws(() => parseSegment('0:3/2'), /within 0:1/);
});

test('FNV-1a: the published test vectors, points in [0, 1)', () => {
  assert.equal(fnv1a32(''), 0x811c9dc5);
  assert.equal(fnv1a32('a'), 0xe40c292c);
  assert.equal(fnv1a32('foobar'), 0xbf9cf968);
  for (const b of range(1000)) {
    const p = segmentPoint(b);
    assert.ok(p >= 0 && p < 1);
  }
});

test('every barcode belongs to exactly one runner of a sequence, and shares are even', () => {
  const pool = range(20000);
  for (const n of [2, 3, 4, 8]) {
    const segs = sequence(n);
    const sizes = segs.map(() => 0);
    for (const b of pool) {
      const owners = segs.filter((s) => inSegment(b, s));
      assert.equal(owners.length, 1, `${b} has ${owners.length} owners among ${n} runners`);
      sizes[segs.indexOf(owners[0])]++;
    }
    // A hash, not a split: within 10 % of an even share on 20,000 barcodes (binomial sd ~2-3 %).
    for (const s of sizes) assert.ok(Math.abs(s - pool.length / n) < 0.1 * (pool.length / n), `sizes ${sizes} for ${n} runners`);
  }
});

test('runners that loaded different lists (started at different moments) still never share an item or patron', () => {
  // Runner 1 loaded before anything moved; runner 2 loaded after runner 1 had checked out the
  // first 40 items: they are missing from its "available" and present in its "checked out".
  const all = range(2000);
  const users = range(400, 'u');
  const early = { available: all.slice(0, 1000), checkedOut: range(50, 'seed'), users };
  const late = { available: all.slice(40, 1040), checkedOut: [...all.slice(0, 40), ...range(50, 'seed')].sort(), users };
  for (const n of [2, 4]) {
    const segs = sequence(n);
    const loaded = segs.map((_, i) => (i === 0 ? early : late));
    const owner = new Map();
    const claim = (x, who) => {
      assert.ok(!owner.has(x) || owner.get(x) === who, `${x} used by ${owner.get(x)} and ${who}`);
      owner.set(x, who);
    };
    segs.forEach((seg, r) => {
      const part = segmentPools(loaded[r], seg);
      const slots = segmentSlots(buildProfile('demo').scenarios, seg);
      for (let v = 0; v < slots; v++) {
        const share = vuShare(part, slots, v, 50);
        for (const b of [...share.available, ...share.checkedOut]) claim(b, `runner ${r + 1} VU ${v + 1}`);
        // Patrons: disjoint across runners (within a runner VUs may share when there are few).
        for (const u of share.users) claim(u, `runner ${r + 1}`);
      }
      // Teardown of a runner sees only its own items.
      for (const b of runItemBarcodes(part, slots, 50)) assert.ok(inSegment(b, seg));
    });
  }
});

test('without a segment the pools and slices are exactly those of a single-process run', () => {
  const pools = { available: range(1000), checkedOut: range(60, 'c'), users: range(300, 'u') };
  assert.equal(segmentPools(pools, null), pools, 'the same object, not a filtered copy');
  const scen = buildProfile('demo').scenarios;
  assert.equal(segmentSlots(scen, null), vuSlots(scen));
  assert.deepEqual(vuShare(segmentPools(pools, null), vuSlots(scen), 3, 50), vuShare(pools, vuSlots(scen), 3, 50));
});

test('VU slots of a runner bound k6 scaling of every scenario to its segment', () => {
  const demo = buildProfile('demo').scenarios; // 1, 5, 8, 20 VUs
  assert.equal(segmentSlots(demo, parseSegment('0:1/2')), 1 + 3 + 4 + 10);
  assert.equal(segmentSlots(demo, parseSegment('1/4:2/4')), 1 + 2 + 2 + 5);
  assert.equal(segmentSlots(buildProfile('smoke').scenarios, parseSegment('1/2:1')), 1);
  // What k6 initialised wins when larger (e.g. an executor this bound does not model).
  assert.equal(segmentSlots(demo, parseSegment('0:1/2'), 25), 25);
});
