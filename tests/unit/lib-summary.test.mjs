import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { responseTimeTable, slowApiTable, renderText, summaryDocument, summaryPath } from '../../lib/cico/summary.js';
import { thresholdResults } from '../../lib/summary.js';
import { makeTestId, validTestId } from '../../lib/testid.js';

// Recorded from a real k6 run (fixtures/record-k6-summary.js): check-out = (i+1)*100 ms*vus,
// check-in = (i+1)*40 ms*vus except the first iteration of each scenario, which failed.
const data = JSON.parse(readFileSync(new URL('./fixtures/k6-summary-data.json', import.meta.url), 'utf8'));

// k6's percentile: linear interpolation between closest ranks (metrics/sink.go TrendSink.P).
function p(values, pct) {
  const s = [...values].sort((a, b) => a - b);
  const i = (pct / 100) * (s.length - 1);
  const lo = Math.floor(i);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (i - lo);
}
const seq = (n, f) => Array.from({ length: n }, (_, i) => f(i));

test('response-time table: one row per user count, seconds, k6 percentiles', () => {
  const rows = responseTimeTable(data);
  assert.deepEqual(rows.map((r) => r.vus), [1, 5]);
  const out1 = seq(8, (i) => (i + 1) * 100);
  const in5 = seq(19, (i) => (i + 2) * 40 * 5);
  const r1 = rows[0]['check-out'];
  assert.equal(r1.count, 8);
  assert.ok(Math.abs(r1.avg - out1.reduce((a, b) => a + b) / 8 / 1000) < 1e-9);
  assert.ok(Math.abs(r1.p75 - p(out1, 75) / 1000) < 1e-9);
  assert.ok(Math.abs(r1.p95 - p(out1, 95) / 1000) < 1e-9);
  assert.ok(Math.abs(r1.p50 - p(out1, 50) / 1000) < 1e-9);
  const r5 = rows[1]['check-in'];
  assert.equal(r5.count, 19, 'failed transactions are not timed');
  assert.ok(Math.abs(r5.p95 - p(in5, 95) / 1000) < 1e-9);
});

test('slow-API table: p75 above 100 ms per user count only', () => {
  const rows = slowApiTable(data);
  assert.deepEqual(rows.map((r) => [r.name, r.vus]), [['GET /automated-patron-blocks/{id}', 1], ['GET /automated-patron-blocks/{id}', 5]]);
  assert.ok(rows.every((r) => r.p75 > 100));
  assert.deepEqual(slowApiTable(data, 1).map((r) => r.name).sort(), ['GET /automated-patron-blocks/{id}', 'GET /automated-patron-blocks/{id}', 'GET /groups', 'GET /groups']);
});

test('threshold results leave out the no-op rules and list failures first', () => {
  const th = thresholdResults(data);
  assert.ok(th.every((t) => t.expr !== 'max>=0' && t.expr !== 'rate>=0'));
  assert.deepEqual(th.filter((t) => !t.ok).map((t) => t.metric), ['transaction_duration{transaction:check-in}', 'transaction_duration{transaction:check-out}', 'transaction_failed']);
  assert.equal(th[0].ok, false);
});

test('text summary prints both tables and the failed thresholds', () => {
  const meta = { testid: 't1', workflow: 'cico', release: 'fixture', target: 'local', profile: 'demo', summaryPath: 'results/t1/summary.json' };
  const text = renderText(data, meta);
  assert.match(text, /Response times \(seconds/);
  assert.match(text, /^1 +0\.200 +0\.200 +0\.260 +0\.308 +0\.450 +0\.450 +0\.625 +0\.765 +7 +8$/m);
  assert.match(text, /Slow APIs \(p75 > 100 ms/);
  assert.match(text, /^GET \/automated-patron-blocks\/\{id\} +1 +1\d\d\.\d/m);
  assert.match(text, /FAILED transaction_duration\{transaction:check-out\} p\(95\)<2000/);
  assert.match(text, /Summary: results\/t1\/summary\.json/);
  const doc = summaryDocument({ ...data, setup_data: { pools: { available: ['secret-ish'] } } }, meta);
  assert.equal(doc.k6.setup_data, undefined, 'pools are not copied into summary.json');
  assert.equal(doc.tables.responseTimes.length, 2);
  assert.equal(doc.meta.testid, 't1');
});

test('testid: cico-<UTC timestamp>-<release>, validated', () => {
  assert.equal(makeTestId('cico', 'lotus', new Date('2026-11-22T03:00:00.123Z')), 'cico-20261122T030000Z-lotus');
  assert.ok(validTestId('cico-20261122T030000Z-lotus'));
  assert.ok(!validTestId('../etc'));
  assert.ok(!validTestId('a b'));
  assert.equal(summaryPath('t1'), 'results/t1/summary.json');
});
