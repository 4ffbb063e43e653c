// Merging the runners' summaries of a split run (tools/verdict/merge-summary.mjs), without InfluxDB:
// what adds up is added, a Trend's values come from the trend reader (InfluxDB in a run), and each
// threshold is judged again on the merged values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeGroups, mergeMetric, mergeData } from '../../tools/verdict/merge-summary.mjs';
import { responseTimeTable } from '../../lib/cico/summary.js';

const noTrend = async () => assert.fail('no Trend here');

test('counters and rates add up; the rate of a Rate is passes over all samples', async () => {
  const c = await mergeMetric('http_reqs', [{ type: 'counter', contains: 'default', values: { count: 30, rate: 1 } }, { type: 'counter', contains: 'default', values: { count: 10, rate: 0.3 } }], 20, noTrend);
  assert.deepEqual(c.values, { count: 40, rate: 2 });
  const r = await mergeMetric(
    'transaction_failed',
    [
      { type: 'rate', values: { passes: 1, fails: 99, rate: 0.01 }, thresholds: { 'rate<=0.01': { ok: true } } },
      { type: 'rate', values: { passes: 3, fails: 97, rate: 0.03 }, thresholds: { 'rate<=0.01': { ok: false } } },
    ],
    20,
    noTrend,
  );
  assert.deepEqual(r.values, { passes: 4, fails: 196, rate: 0.02 });
  assert.deepEqual(r.thresholds, { 'rate<=0.01': { ok: false } }, 'judged again on the merged rate');
});

test("a Trend's values come from the reader over all samples, and its thresholds are judged on them", async () => {
  const asked = [];
  const trend = async (key, stats) => {
    asked.push([key, stats]);
    return { avg: 120, min: 10, med: 100, max: 900, 'p(95)': 640, count: 80 };
  };
  const ms = [
    { type: 'trend', contains: 'time', values: { avg: 1, min: 1, med: 1, max: 1, 'p(95)': 500, count: 40 }, thresholds: { 'p(95)<600': { ok: true }, 'max>=0': { ok: true } } },
    { type: 'trend', contains: 'time', values: { avg: 1, min: 1, med: 1, max: 1, 'p(95)': 590, count: 40 }, thresholds: { 'p(95)<600': { ok: true } } },
  ];
  const m = await mergeMetric('transaction_duration{transaction:check-out,vus:4}', ms, 20, trend);
  assert.deepEqual(asked, [['transaction_duration{transaction:check-out,vus:4}', ['avg', 'min', 'med', 'max', 'p(95)', 'count']]]);
  assert.equal(m.values['p(95)'], 640);
  assert.deepEqual(m.thresholds, { 'p(95)<600': { ok: false }, 'max>=0': { ok: true } }, 'both runners passed, the union does not');
});

test('checks add up by group and name; the merged data gives the tables as one run would', async () => {
  const g1 = { name: '', checks: [{ name: 'loan is Open', passes: 5, fails: 0 }], groups: [{ name: 'setup', checks: [{ name: 'login', passes: 1, fails: 0 }], groups: [] }] };
  const g2 = { name: '', checks: [{ name: 'loan is Open', passes: 7, fails: 1 }], groups: [{ name: 'setup', checks: [{ name: 'login', passes: 1, fails: 0 }], groups: [] }] };
  const m = mergeGroups([g1, g2]);
  assert.deepEqual(m.checks, [{ name: 'loan is Open', passes: 12, fails: 1 }]);
  assert.deepEqual(m.groups[0].checks, [{ name: 'login', passes: 2, fails: 0 }]);

  const summary = (n, ms) => ({ k6: { state: { testRunDurationMs: ms }, root_group: g1, metrics: { 'transaction_duration{transaction:check-out,vus:4}': { type: 'trend', contains: 'time', values: { avg: 0, 'p(50)': 0, 'p(75)': 0, 'p(95)': 0, count: n } } } } });
  const trend = async () => ({ avg: 200, 'p(50)': 150, 'p(75)': 250, 'p(95)': 640, count: 80 });
  const data = await mergeData([summary(40, 30000), summary(40, 31000)], trend);
  assert.equal(data.state.testRunDurationMs, 31000);
  assert.deepEqual(responseTimeTable(data), [{ vus: 4, 'check-out': { count: 80, avg: 0.2, p50: 0.15, p75: 0.25, p95: 0.64 } }]);
});

test("the runners' VUs add up; another gauge keeps its extremes", async () => {
  const vus = await mergeMetric('vus', [{ type: 'gauge', values: { min: 1, max: 5, value: 5 } }, { type: 'gauge', values: { min: 1, max: 5, value: 4 } }], 20, noTrend);
  assert.deepEqual(vus.values, { min: 2, max: 10, value: 9 });
  const vm = await mergeMetric('vus_max', [{ type: 'gauge', values: { min: 5, max: 5, value: 5 } }, { type: 'gauge', values: { min: 5, max: 5, value: 5 } }], 20, noTrend);
  assert.equal(vm.values.max, 10);
  const g = await mergeMetric('reindex_running', [{ type: 'gauge', values: { min: 0, max: 1, value: 0 } }, { type: 'gauge', values: { min: 0, max: 0, value: 0 } }], 20, noTrend);
  assert.deepEqual(g.values, { min: 0, max: 1, value: 0 });
});

test("runnerSummaries: only runners 1..N, and a cut-off summary is one line naming the file", async () => {
  const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { runnerSummaries } = await import('../../tools/verdict/merge-summary.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'fp-merge-'));
  for (const i of [1, 2, 3]) {
    mkdirSync(join(dir, 'runners', String(i)), { recursive: true });
    writeFileSync(join(dir, 'runners', String(i), 'summary.json'), JSON.stringify({ n: i }));
  }
  assert.deepEqual(runnerSummaries(dir, 2).map((r) => r.instance), ['1', '2'], 'runner 3 of an earlier run with the same testid is left out');
  assert.equal(runnerSummaries(dir).length, 3);
  writeFileSync(join(dir, 'runners', '2', 'summary.json'), '{"k6": {"metr');
  assert.throws(() => runnerSummaries(dir, 2), (e) => e.name === 'ReportError' && /runners\/2\/summary\.json is not JSON.*fix: /.test(e.message));
});
