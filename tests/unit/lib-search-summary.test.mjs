// The mod-search report tables from k6's handleSummary data: rows per template, kind averages,
// totals, requests over 700 ms, baseline vs reindex, the reindex window, and the rendering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { searchTables, phaseComparison, reindexTable, renderText, summaryDocument } from '../../lib/search-summary.js';
import { TEMPLATES } from '../../lib/search-templates.js';

// k6's handleSummary data in its shape (metric key -> {type, contains, values, thresholds}): two
// templates per phase at 1 user, a reindex that completed; see fixtures/search-summary-data.json.
const data = JSON.parse(readFileSync(new URL('./fixtures/search-summary-data.json', import.meta.url), 'utf8'));
const templates = TEMPLATES.map((t) => ({ name: t.name, group: t.group, kind: t.kind }));
const ctx = { templates, stepSeconds: 60 };
const W = 'GET /search/instances: title all 1randomword*';
const P = 'GET /search/instances: title all *1randomword';
const R = 'GET /search/authorities keyword all randomword';
const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-9, `${a} != ${b}`);

test('rows per template: count, req/s, stats in seconds, slow count; in template order', () => {
  const steps = searchTables(data, ctx);
  assert.deepEqual(steps.map((s) => [s.vus, s.phase]), [[1, 'baseline'], [1, 'reindex']]);
  const base = steps[0];
  assert.deepEqual(base.rows.map((r) => r.name), [R, P, W]);
  const p = base.rows[1];
  assert.equal(p.total, 30);
  close(p.rps, 0.5);
  close(p.p95, 11.234);
  close(p.avg, 6.886);
  close(p.min, 2.1);
  close(p.p99, 12.5);
  assert.equal(p.slow, 30);
  assert.equal(base.rows[0].slow, 0, 'no counter sample = none over 700 ms');
  assert.equal(base.total, 30 + 60 + 40);
  assert.equal(base.slow, 30 + 2);
  // Kind averages weight each template by its count.
  close(base.kinds['wildcard-prefix'].avg, 6.886);
  close(base.kinds.wildcard.avg, 0.117);
  close(base.kinds.regular.avg, 0.067);
  assert.equal(base.kinds.regular.templates, 1);
});

test('baseline vs under reindex: Δ % per template and for the throughput', () => {
  const cmp = phaseComparison(searchTables(data, ctx));
  assert.equal(cmp.length, 1);
  const row = cmp[0].rows.find((r) => r.name === P);
  close(row.deltaAvgPct, (9.568 / 6.886 - 1) * 100);
  close(row.deltaRpsPct, (20 / 30 - 1) * 100);
  close(cmp[0].total.deltaPct, ((20 + 45 + 30) / 130 - 1) * 100);
});

test('reindex window: count, outcome, duration, start and end', () => {
  const [r] = reindexTable(data);
  assert.equal(r.vus, 1);
  assert.equal(r.count, 1);
  assert.deepEqual(r.outcomes, { completed: 1 });
  close(r.durationS.avg, 42.5);
  assert.equal(r.startedAt, '2026-11-24T10:00:10.000Z');
  assert.equal(r.endedAt, '2026-11-24T10:00:52.500Z');
});

test('text and summary.json: the tables, no template data leaks, thresholds', () => {
  const meta = { testid: 't1', workflow: 'search', release: 'minifolio', target: 'local', profile: 'smoke', tenant: 'fs09000000', reindexTenant: 'fs09000001', stepSeconds: 60, templates, summaryPath: 'results/t1/summary.json' };
  const text = renderText(data, meta);
  assert.match(text, /1 user, baseline \(seconds/);
  assert.match(text, /1 user, under reindex/);
  assert.match(text, /template\s+total\s+req\/s\s+min\s+p50\s+p75\s+p95\s+p99\s+max\s+avg\s+>700ms/);
  assert.match(text, new RegExp(`${P.replace(/[*()]/g, '\\$&')}\\s+30\\s+0\\.5\\s+2\\.100\\s+`));
  assert.match(text, /averages: regular 0\.067 s, wildcard 0\.117 s, wildcard prefix 6\.886 s/);
  assert.match(text, /total requests: 130 \(2\.2 req\/s\), over 700 ms: 32/);
  assert.match(text, /1 user: baseline vs under reindex/);
  assert.match(text, /Background reindex of fs09000001/);
  assert.match(text, /1 reindex\(es\), 1 completed; duration avg 42\.500 s/);
  assert.match(text, /Thresholds: 1\/2 passed\n {2}FAILED http_req_duration\{kind:wildcard-prefix\} p\(95\)<5000/);
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
