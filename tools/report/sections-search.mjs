// The mod-search sections, from the tables lib/search/summary.js wrote into summary.json (never
// recomputed here): per user count and phase the per-template table, the averages per kind and
// the requests over 700 ms; baseline vs under reindex; the background reindexes. Pure.
import { SEARCH_SLOW_MS } from '../../lib/metrics.js';
import { s3, f2, int, signedPct, plural } from './format.mjs';
import { errorsBlock } from './sections-cico.mjs';

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

export function searchSection(summary, errors) {
  const t = summary.tables || {};
  const steps = t.searchSteps || [];
  return {
    id: 'search',
    title: 'mod-search',
    blocks: [...steps.map(stepBlock), averagesBlock(steps), ...phaseBlocks(t.phaseComparison || []), reindexBlock(t.reindex || [], summary.meta?.reindexTenant), errorsBlock(errors)],
  };
}
