// The mod-search report tables from k6's handleSummary data: rows per template, kind averages,
// totals, requests over 700 ms, baseline vs reindex, the reindex window, and the rendering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { searchTables, phaseComparison, reindexTable, renderText, summaryDocument } from '../../lib/search/summary.js';
import { TEMPLATES } from '../../lib/search/templates.js';

// Recorded from a real k6 run (fixtures/record-search-summary.js, 1 user): per phase, every
// iteration sends R twice, P (750 ms, so always over 700 ms) and W once; 3 iterations in the
// baseline phase, 2 under reindex; one reindex that completed after one 750 ms call.
const data = JSON.parse(readFileSync(new URL('./fixtures/search-summary-data.json', import.meta.url), 'utf8'));
const templates = TEMPLATES.map((t) => ({ name: t.name, group: t.group, kind: t.kind }));
const ctx = { templates, stepSeconds: 60 };
const R = 'GET /search/authorities keyword all randomword';
const P = 'GET /search/instances: title all *1randomword';
const W = 'GET /search/instances: title all 1randomword*';
const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-9, `${a} != ${b}`);
const key = (name, phase) => `http_req_duration{name:${name},vus:1,phase:${phase}}`;

test('rows per template: count, req/s, stats in seconds, slow count; in template order; templates without samples left out', () => {
  const steps = searchTables(data, ctx);
  assert.deepEqual(steps.map((s) => [s.vus, s.phase]), [[1, 'baseline'], [1, 'reindex']]);
  const [base, re] = steps;
  assert.deepEqual(base.rows.map((r) => r.name), [R, P, W]);
  assert.deepEqual(base.rows.map((r) => r.total), [6, 3, 3]);
  assert.deepEqual(re.rows.map((r) => r.total), [4, 2, 2]);
  const p = base.rows[1];
  const v = data.metrics[key(P, 'baseline')].values;
  close(p.rps, 3 / 60);
  for (const [col, stat] of [['min', 'min'], ['p50', 'p(50)'], ['p75', 'p(75)'], ['p95', 'p(95)'], ['p99', 'p(99)'], ['max', 'max'], ['avg', 'avg']]) close(p[col], v[stat] / 1000);
  assert.ok(p.min >= 0.7 && p.min <= p.p50 && p.p50 <= p.p95 && p.p95 <= p.max);
  assert.deepEqual(base.rows.map((r) => r.slow), [0, 3, 0]);
  assert.deepEqual(re.rows.map((r) => r.slow), [0, 2, 0]);
  assert.deepEqual([base.total, base.slow, re.total, re.slow], [12, 3, 8, 2]);
  // Kind averages weight each template by its count; here one template per kind.
  close(base.kinds['wildcard-prefix'].avg, p.avg);
  close(base.kinds.wildcard.avg, base.rows[2].avg);
  close(base.kinds.regular.avg, base.rows[0].avg);
  assert.deepEqual(Object.values(base.kinds).map((k) => k.total), [6, 3, 3]);
});

test('kind average over several templates is weighted by their request counts', () => {
  const two = { metrics: { ...data.metrics } };
  const other = 'GET /search/authorities keyword any randomword';
  two.metrics[key(other, 'baseline')] = { type: 'trend', contains: 'time', values: { count: 2, avg: 100, min: 90, max: 110, 'p(50)': 100, 'p(75)': 105, 'p(95)': 109, 'p(99)': 110 } };
  const [base] = searchTables(two, ctx);
  const r = base.rows.find((x) => x.name === R);
  close(base.kinds.regular.avg, (r.avg * 6 + 0.1 * 2) / 8);
});

test('baseline vs under reindex: Δ % per template and for the throughput', () => {
  const steps = searchTables(data, ctx);
  const cmp = phaseComparison(steps);
  assert.equal(cmp.length, 1);
  const row = cmp[0].rows.find((r) => r.name === P);
  const b = steps[0].rows[1];
  const x = steps[1].rows[1];
  close(row.deltaAvgPct, (x.avg / b.avg - 1) * 100);
  close(row.deltaP95Pct, (x.p95 / b.p95 - 1) * 100);
  close(row.deltaRpsPct, (2 / 3 - 1) * 100);
  close(cmp[0].total.deltaPct, (8 / 12 - 1) * 100);
  // Only the baseline phase ran: nothing to compare.
  assert.deepEqual(phaseComparison(steps.slice(0, 1)), []);
});

test('reindex window: count, outcome, duration, start and end', () => {
  const [r] = reindexTable(data);
  assert.equal(r.vus, 1);
  assert.equal(r.count, 1);
  assert.deepEqual(r.outcomes, { completed: 1 });
  assert.ok(r.durationS.avg >= 0.7, `duration ${r.durationS.avg}`);
  const start = data.metrics['reindex_started_at{vus:1}'].values.min;
  const end = data.metrics['reindex_ended_at{vus:1}'].values.max;
  assert.equal(r.startedAt, new Date(start).toISOString());
  assert.equal(r.endedAt, new Date(end).toISOString());
  close(end - start, data.metrics['reindex_duration{vus:1}'].values.max);
});

test('text and summary.json: the tables, no template data leaks, thresholds', () => {
  const meta = { testid: 't1', workflow: 'search', release: 'minifolio', target: 'local', profile: 'smoke', tenant: 'fs09000000', reindexTenant: 'fs09000001', stepSeconds: 60, templates, summaryPath: 'results/t1/summary.json' };
  const text = renderText(data, meta);
  assert.match(text, /1 user, baseline \(seconds/);
  assert.match(text, /1 user, under reindex/);
  assert.match(text, /template\s+total\s+req\/s\s+min\s+p50\s+p75\s+p95\s+p99\s+max\s+avg\s+>700ms/);
  assert.match(text, new RegExp(`${P.replace(/[*()]/g, '\\$&')}\\s+3\\s+0\\.05\\s+0\\.75\\d\\s+`));
  assert.match(text, /averages: regular 0\.\d{3} s, wildcard 0\.\d{3} s, wildcard prefix 0\.75\d s/);
  assert.match(text, /total requests: 12 \(0\.20 req\/s\), over 700 ms: 3/);
  assert.match(text, /1 user: baseline vs under reindex/);
  assert.match(text, /Background reindex of fs09000001/);
  assert.match(text, /1 reindex\(es\), 1 completed; duration avg 0\.75\d s/);
  assert.match(text, /Thresholds: \d+\/\d+ passed\n/);
  const doc = summaryDocument(data, meta);
  assert.equal(doc.format, 'folio-perf-summary/1');
  assert.equal(doc.meta.templates, undefined);
  assert.equal(doc.tables.searchSteps.length, 2);
  assert.equal(doc.tables.phaseComparison[0].vus, 1);
  assert.equal(doc.tables.reindex[0].outcomes.completed, 1);
  assert.ok(doc.k6.metrics);
  const none = renderText({ metrics: {} }, { ...meta, reindexTenant: null });
  assert.match(none, /Search requests: none recorded/);
  assert.match(none, /Background reindex: none \(set REINDEX_TENANT/);
});
