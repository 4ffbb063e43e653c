// The mod-search workflow in the Node tools (found through tools/workflows.mjs): its report
// tables, from the tables lib/search/summary.js wrote into summary.json (never recomputed here):
// per user count and phase the per-template table, the averages per kind and the requests over
// 700 ms; baseline vs under reindex; the background reindexes. Its comparison rows, what its charts
// follow, how its runners' summaries merge, its k8s TestRun, what a run needs. Pure.
import { METRICS, TAGS, SEARCH_SLOW_MS, SEARCH_KINDS } from '../../../lib/metrics.js';
import { summaryDocument } from '../../../lib/search/summary.js';
import { TEMPLATES } from '../../../lib/search/templates.js';
import { s3, f2, int, signedPct, plural } from '../format.mjs';
import { COLUMNS, row, ruleText } from '../compare-tables.mjs';

export const title = 'mod-search';
// The charts and the longevity section follow each template group's request times.
export const series = { measurement: METRICS.httpDuration, tag: TAGS.group, unit: 'requests/s' };
// A run needs OpenSearch (minifolio's mod-search) and the query files.
export const needs = ['opensearch', 'search-data'];

/** User-count steps the run plans: each user count once per phase. */
export function expectedSteps(meta) {
  return (meta.steps || []).length * (meta.phases || ['baseline']).length;
}

const PHASE = { baseline: 'baseline', reindex: 'under reindex' };

export function stepBlock(st) {
  return {
    type: 'table',
    id: `search-${st.vus}-${st.phase}`,
    caption: `${plural(st.vus, 'user')}, ${PHASE[st.phase] || st.phase} (seconds; >${SEARCH_SLOW_MS} ms = requests over ${SEARCH_SLOW_MS} ms)`,
    columns: [{ label: 'Template', wrap: true }, ...['Total', 'Req/s', 'Min', 'p50', 'p75', 'p95', 'p99', 'Max', 'Avg', `>${SEARCH_SLOW_MS} ms`].map((label) => ({ label, align: 'r' }))],
    rows: st.rows.map((r) => [r.name, int(r.total), f2(r.rps), s3(r.min), s3(r.p50), s3(r.p75), s3(r.p95), s3(r.p99), s3(r.max), s3(r.avg), int(r.slow)]),
    empty: 'No search request recorded.',
    source: 'summary.json tables.searchSteps (lib/search/summary.js)',
  };
}

export function averagesBlock(steps) {
  return {
    type: 'table',
    id: 'search-averages',
    caption: `Group averages and totals (seconds; a kind's average weighs each template by its requests)`,
    columns: [{ label: 'Users' }, { label: 'Phase' }, { label: 'Regular avg', align: 'r' }, { label: 'Wildcard avg', align: 'r' }, { label: 'Wildcard prefix avg', align: 'r' }, { label: 'Requests', align: 'r' }, { label: 'Req/s', align: 'r' }, { label: `>${SEARCH_SLOW_MS} ms`, align: 'r' }],
    rows: steps.map((st) => [String(st.vus), PHASE[st.phase] || st.phase, s3(st.kinds?.regular?.avg), s3(st.kinds?.wildcard?.avg), s3(st.kinds?.['wildcard-prefix']?.avg), int(st.total), f2(st.rps), int(st.slow)]),
    empty: 'No search request recorded.',
    source: 'summary.json tables.searchSteps (lib/search/summary.js)',
  };
}

export function phaseBlocks(cmp) {
  return cmp.map((c) => ({
    type: 'table',
    id: `search-phases-${c.vus}`,
    caption: `${plural(c.vus, 'user')}: baseline vs under reindex (seconds; Δ = reindex / baseline - 1); requests ${c.total.baseline} → ${c.total.reindex} (${signedPct(c.total.deltaPct)}), ${f2(c.rps.baseline)} → ${f2(c.rps.reindex)} req/s`,
    columns: [{ label: 'Template', wrap: true }, ...['Avg', 'Avg reindex', 'Δ avg', 'p95', 'p95 reindex', 'Δ p95', 'Req/s', 'Req/s reindex', 'Δ req/s'].map((label) => ({ label, align: 'r' }))],
    rows: c.rows.map((r) => [r.name, s3(r.baseline.avg), s3(r.reindex?.avg), signedPct(r.deltaAvgPct), s3(r.baseline.p95), s3(r.reindex?.p95), signedPct(r.deltaP95Pct), f2(r.baseline.rps), f2(r.reindex?.rps), signedPct(r.deltaRpsPct)]),
    source: 'summary.json tables.phaseComparison (lib/search/summary.js)',
  }));
}

export function reindexBlock(rows, tenant) {
  return {
    type: 'table',
    id: 'search-reindex',
    caption: tenant ? `Background reindex of ${tenant}` : 'Background reindex',
    columns: [{ label: 'Users' }, { label: 'Reindexes', align: 'r' }, { label: 'Outcomes' }, { label: 'Avg s', align: 'r' }, { label: 'Max s', align: 'r' }, { label: 'Started' }, { label: 'Ended' }],
    rows: rows.map((r) => [String(r.vus), int(r.count), Object.entries(r.outcomes || {}).map(([k, n]) => `${n} ${k}`).join(', ') || 'none ended', s3(r.durationS?.avg), s3(r.durationS?.max), r.startedAt || '-', r.endedAt || '-']),
    empty: tenant ? 'No reindex recorded.' : 'None (the run had no reindex phase: REINDEX_TENANT was not set).',
    source: 'summary.json tables.reindex (lib/search/summary.js)',
  };
}

/** The report's tables of this workflow, from summary.json. */
export function blocks(summary) {
  const t = summary.tables || {};
  const steps = t.searchSteps || [];
  return [...steps.map(stepBlock), averagesBlock(steps), ...phaseBlocks(t.phaseComparison || []), reindexBlock(t.reindex || [], summary.meta?.reindexTenant)];
}

// ---- comparison of two runs -------------------------------------------------------------------

/** Per user count and phase: each template's avg and p95, and each kind's average, by the transaction rule. */
export function compareBlocks(a, b, rules) {
  const rule = rules.transactions;
  const steps = (s) => new Map((s.tables?.searchSteps || []).map((st) => [`${st.vus}|${st.phase}`, st]));
  const sa = steps(a);
  const sb = steps(b);
  const out = [];
  for (const key of [...new Set([...sa.keys(), ...sb.keys()])]) {
    const [vus, phase] = key.split('|');
    const A = sa.get(key);
    const B = sb.get(key);
    const names = [...new Set([...(A?.rows || []), ...(B?.rows || [])].map((r) => r.name))];
    const rows = [];
    for (const n of names) {
      const ra = A?.rows.find((r) => r.name === n);
      const rb = B?.rows.find((r) => r.name === n);
      rows.push(row(`${n} avg`, ra?.avg ?? null, rb?.avg ?? null, rule));
      rows.push(row(`${n} p95`, ra?.p95 ?? null, rb?.p95 ?? null, rule));
    }
    for (const k of SEARCH_KINDS) rows.push(row(`${k} average`, A?.kinds?.[k]?.avg ?? null, B?.kinds?.[k]?.avg ?? null, rule));
    out.push({ type: 'table', id: `cmp-search-${vus}-${phase}`, caption: `${plural(Number(vus), 'user')}, ${phase} (seconds); verdict: ${ruleText(rule)}`, columns: COLUMNS('Template, stat'), rows, source: 'summary.json tables.searchSteps of A and B' });
  }
  return out;
}

/** summary.json of a run split over runners, from their merged k6 data: the tables need the templates. */
export function summarize(data, meta) {
  return summaryDocument(data, { ...meta, templates: TEMPLATES.map((t) => ({ name: t.name, group: t.group, kind: t.kind })) });
}

// Its k6-operator TestRun (tools/k8s-base.mjs): the query files come from a ConfigMap, not from
// FOLIO's database, so no database password.
export const k8s = {
  head: [
    '# The mod-search workflow (scripts/mod-search.js) split over `parallelism` k6 pods. Each iteration',
    "# reads the query row of its number across all runners (k6's exec.scenario.iterationInTest counts",
    '# over every segment), so the pods go through the files together as one k6 would, not each from',
    "# the first row. The reindex phase's one VU (REINDEX_TENANT) runs in one pod only, as k6 gives",
    '# a 1-VU scenario to a single segment.',
  ],
  env: { DATA: 'csv:/search-data' },
  volumes: [{ name: 'search-data', configMap: 'folio-perf-search-data', mountPath: '/search-data', why: "mod-search's query files (make search-data), created apart: k8s/README.md." }],
};
