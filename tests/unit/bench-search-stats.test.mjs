// make bench-search's arithmetic: quantiles, and each target's verdict against
// the floor measured in the same run (tools/bench-search-stats.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuShare, median, quantile, reindexVerdict, spread, templateVerdict } from '../../tools/bench-search-stats.mjs';

test('quantiles interpolate between the sorted values', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(quantile([10, 20, 30, 40, 50], 0.25), 20);
  assert.equal(quantile([1, 2], 0.75), 1.75);
  assert.ok(Number.isNaN(median([])));
  const s = spread([100, 80, 120, 90, 110]);
  assert.deepEqual([s.median, s.q1, s.q3], [100, 90, 110]);
  assert.equal(s.relative, 0.2);
});

test('reindex: met at the target, within the floor when the shortfall is smaller than the raw bulk\'s own spread', () => {
  assert.equal(reindexVerdict([0.7, 0.9, 0.5], [1000, 1000, 1000]), 'met');
  // Median 0.65: 7 % short of 0.7; the raw bulk moved 10 % of its median (IQR) between rounds.
  assert.equal(reindexVerdict([0.6, 0.65, 0.8], [900, 1000, 1100, 950, 1050]), "within the raw bulk's own spread");
  // The same shortfall with a steady floor is a measured one.
  assert.equal(reindexVerdict([0.6, 0.65, 0.8], [1000, 1000, 1000]), 'NOT met');
  assert.equal(reindexVerdict([0.3, 0.35, 0.4], [900, 1000, 1100, 950, 1050]), 'NOT met');
});

test('template: met within 1.2x of direct; beyond the floor only when the pass-through alone is over 1.2x', () => {
  assert.equal(templateVerdict({ gateway: 2.4, floor: 2.2, direct: 2.0 }), 'met');
  assert.equal(templateVerdict({ gateway: 3.0, floor: 2.6, direct: 2.0 }), 'beyond the floor');
  assert.equal(templateVerdict({ gateway: 3.0, floor: 2.2, direct: 2.0 }), 'NOT met');
});

test('CPU share of a window: CPU-seconds over wall seconds between the first and last samples inside it', () => {
  const s = [0, 1, 2, 3, 4].map((i) => ({ t: 1000 * i, cpu: 0.5 * i }));
  assert.equal(cpuShare(s, 1000, 3000), 0.5);
  assert.equal(cpuShare(s, 0, 4000), 0.5);
  assert.equal(cpuShare(s, 1500, 2500), null); // one sample inside: no share
});
