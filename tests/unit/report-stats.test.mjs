// The report's arithmetic: memory growth per hour by least squares, Δ %, times better, and the
// comparison verdict by the regression gate's rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { growthPerHour, deltaPct, timesBetter, verdict } from '../../tools/report/stats.mjs';
import { rulesFor, FALLBACK_RULE } from '../../tools/report/compare.mjs';
import { readFileSync } from 'node:fs';

const MiB = 1048576;

test('growth per hour: the exact slope of a straight line, in units per hour', () => {
  // 1 MiB a minute for 20 minutes = 60 MiB an hour, sampled every 10 s.
  const pts = [];
  for (let s = 0; s <= 1200; s += 10) pts.push([1_700_000_000_000 + s * 1000, 100 * MiB + (s / 60) * MiB]);
  assert.ok(Math.abs(growthPerHour(pts) / MiB - 60) < 1e-9);
  // Flat memory: no growth; falling memory: negative.
  assert.equal(growthPerHour(pts.map(([t]) => [t, 5 * MiB])), 0);
  assert.ok(growthPerHour(pts.map(([t, v]) => [t, -v])) < 0);
});

test('growth per hour: noise around a trend does not move the least-squares slope', () => {
  const pts = [];
  for (let i = 0; i < 360; i++) pts.push([i * 10_000, i * 1000 + (i % 2 ? 50_000 : -50_000)]);
  // the trend is 1000 per 10 s = 360,000 per hour; the alternating ±50,000 only wobbles it
  const g = growthPerHour(pts);
  assert.ok(Math.abs(g / 360_000 - 1) < 0.01, `slope ${g}`);
});

test('growth per hour: null without a time span (one point, equal times, no numbers)', () => {
  assert.equal(growthPerHour([]), null);
  assert.equal(growthPerHour([[0, 1]]), null);
  assert.equal(growthPerHour([[5, 1], [5, 2]]), null);
  assert.equal(growthPerHour([[0, null], [1000, NaN]]), null);
});

test('Δ % and times better', () => {
  assert.equal(deltaPct(2, 3), 50);
  assert.equal(deltaPct(4, 2), -50);
  assert.equal(deltaPct(0, 1), null);
  assert.equal(deltaPct(null, 1), null);
  assert.equal(timesBetter(1.2, 0.6), 2); // B twice as fast
  assert.equal(timesBetter(1, 0), null);
});

test('verdict: the gate\'s rule both ways, boundary included as within noise', () => {
  const rule = { tolerance: 0.25, slackMs: 75 };
  assert.equal(verdict(100, 100 * 1.25 + 75, rule), 'within noise'); // exactly the gate's limit passes the gate
  assert.equal(verdict(100, 100 * 1.25 + 75.1, rule), 'regressed');
  assert.equal(verdict(100 * 1.25 + 75.1, 100, rule), 'improved');
  assert.equal(verdict(1000, 1200, rule), 'within noise');
  assert.equal(verdict(1000, 1400, rule), 'regressed');
  assert.equal(verdict(null, 1, rule), 'not comparable');
});

test('rules come from thresholds.json\'s regression section; search falls back to CICO\'s transaction rule', () => {
  const doc = JSON.parse(readFileSync(new URL('../../thresholds.json', import.meta.url), 'utf8'));
  const cico = rulesFor(doc, 'cico');
  assert.deepEqual(cico.transactions, { tolerance: doc.workflows.cico.regression.transactions.tolerance, slackMs: doc.workflows.cico.regression.transactions.slackMs });
  assert.deepEqual(cico.apis, { tolerance: doc.workflows.cico.regression.apis.tolerance, slackMs: doc.workflows.cico.regression.apis.slackMs });
  assert.deepEqual(rulesFor(doc, 'search').transactions, FALLBACK_RULE);
});
