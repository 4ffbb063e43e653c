// End-of-run tables of the mod-search workflow, in the shape of the mod-search release report:
// per user count and phase, one row per template (Total, Req/s, Min, p50, p75, p95, p99, Max,
// Avg in seconds, and the requests over 700 ms), the averages per kind (wildcard, wildcard
// prefix), total requests; when both phases ran, baseline vs under reindex with Δ %; the reindex
// windows. From k6's handleSummary `data` (the sub-metrics lib/workflows/search.js asks
// thresholds for); pure, the same interface as lib/cico/summary.js (renderText, summaryDocument, summaryPath).

import { parseMetricKey } from '../baseline.js';
import { METRICS, TAGS, SEARCH_SLOW_MS, SEARCH_KINDS, PHASES } from '../metrics.js';
import { footerLines, summaryDocument as document } from '../summary.js';

export { summaryPath } from '../summary.js';

// The tags the tables are keyed by.
const { name: NAME, vus: VUS, phase: PHASE, outcome: OUTCOME } = TAGS;

const STATS = [
  ['min', 'min'],
  ['p50', 'p(50)'],
  ['p75', 'p(75)'],
  ['p95', 'p(95)'],
  ['p99', 'p(99)'],
  ['max', 'max'],
  ['avg', 'avg'],
];

const sec = (v) => (typeof v === 'number' && Number.isFinite(v) ? v / 1000 : null);

// Sub-metrics of `metric` tagged exactly by `keys`, as {tagsKey -> values}.
function submetrics(data, metric, keys) {
  const out = [];
  for (const [key, m] of Object.entries(data.metrics || {})) {
    const p = parseMetricKey(key);
    if (p.metric !== metric) continue;
    const tk = Object.keys(p.tags);
    if (tk.length !== keys.length || !keys.every((k) => tk.includes(k))) continue;
    out.push({ tags: p.tags, values: (m && m.values) || {} });
  }
  return out;
}

/**
 * The report tables.
 * @param {object} data k6's handleSummary data
 * @param {{templates: Array<{name, group, kind}>, stepSeconds: number}} ctx the templates (order
 *   of the rows) and each step's duration (for Req/s)
 */
export function searchTables(data, { templates, stepSeconds }) {
  const byName = new Map(templates.map((t, i) => [t.name, { ...t, order: i }]));
  const slow = new Map();
  for (const s of submetrics(data, METRICS.searchSlow, [NAME, VUS, PHASE])) slow.set(`${s.tags[NAME]}|${s.tags[VUS]}|${s.tags[PHASE]}`, s.values.count || 0);

  const steps = new Map();
  for (const s of submetrics(data, METRICS.httpDuration, [NAME, VUS, PHASE])) {
    const t = byName.get(s.tags[NAME]);
    if (!t || !s.values.count) continue;
    const vus = Number(s.tags[VUS]);
    const phase = s.tags[PHASE];
    const key = `${vus}|${phase}`;
    if (!steps.has(key)) steps.set(key, { vus, phase, rows: [] });
    const row = { name: t.name, group: t.group, kind: t.kind, total: s.values.count, rps: stepSeconds > 0 ? s.values.count / stepSeconds : null };
    for (const [k, st] of STATS) row[k] = sec(s.values[st]);
    row.slow = slow.get(`${t.name}|${s.tags[VUS]}|${phase}`) || 0;
    steps.get(key).rows.push(row);
  }
  const out = [...steps.values()].sort((a, b) => a.vus - b.vus || PHASES.indexOf(a.phase) - PHASES.indexOf(b.phase));
  for (const st of out) {
    st.rows.sort((a, b) => byName.get(a.name).order - byName.get(b.name).order);
    st.total = st.rows.reduce((n, r) => n + r.total, 0);
    st.slow = st.rows.reduce((n, r) => n + r.slow, 0);
    st.rps = stepSeconds > 0 ? st.total / stepSeconds : null;
    // A kind's average over its requests (each template's average weighted by its count).
    st.kinds = {};
    for (const kind of SEARCH_KINDS) {
      const rows = st.rows.filter((r) => r.kind === kind);
      const n = rows.reduce((a, r) => a + r.total, 0);
      st.kinds[kind] = { templates: rows.length, total: n, avg: n ? rows.reduce((a, r) => a + r.avg * r.total, 0) / n : null };
    }
  }
  return out;
}

const pct = (a, b) => (typeof a === 'number' && typeof b === 'number' && a !== 0 ? (b / a - 1) * 100 : null);

/** Baseline vs under reindex, per user count that ran both phases. */
export function phaseComparison(steps) {
  const out = [];
  const vusList = [...new Set(steps.map((s) => s.vus))];
  for (const vus of vusList) {
    const base = steps.find((s) => s.vus === vus && s.phase === 'baseline');
    const re = steps.find((s) => s.vus === vus && s.phase === 'reindex');
    if (!base || !re) continue;
    const rows = base.rows.map((b) => {
      const r = re.rows.find((x) => x.name === b.name) || null;
      return {
        name: b.name,
        baseline: { avg: b.avg, p95: b.p95, rps: b.rps },
        reindex: r ? { avg: r.avg, p95: r.p95, rps: r.rps } : null,
        deltaAvgPct: r ? pct(b.avg, r.avg) : null,
        deltaP95Pct: r ? pct(b.p95, r.p95) : null,
        deltaRpsPct: r ? pct(b.rps, r.rps) : null,
      };
    });
    out.push({ vus, rows, total: { baseline: base.total, reindex: re.total, deltaPct: pct(base.total, re.total) }, rps: { baseline: base.rps, reindex: re.rps, deltaPct: pct(base.rps, re.rps) } });
  }
  return out;
}

/** The background reindexes per user count: how many, their outcome, duration and window. */
export function reindexTable(data) {
  const rows = new Map();
  const row = (vus) => {
    if (!rows.has(vus)) rows.set(vus, { vus, count: 0, outcomes: {}, durationS: { avg: null, max: null }, startedAt: null, endedAt: null });
    return rows.get(vus);
  };
  for (const s of submetrics(data, METRICS.reindexDuration, [VUS])) {
    if (!s.values.count) continue;
    const r = row(Number(s.tags[VUS]));
    r.count = s.values.count;
    r.durationS = { avg: sec(s.values.avg), max: sec(s.values.max) };
  }
  for (const s of submetrics(data, METRICS.reindexDuration, [VUS, OUTCOME])) {
    if (s.values.count) row(Number(s.tags[VUS])).outcomes[s.tags[OUTCOME]] = s.values.count;
  }
  const iso = (v) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? new Date(v).toISOString() : null);
  for (const s of submetrics(data, METRICS.reindexStartedAt, [VUS])) if (s.values.count) row(Number(s.tags[VUS])).startedAt = iso(s.values.min);
  for (const s of submetrics(data, METRICS.reindexEndedAt, [VUS])) if (s.values.count) row(Number(s.tags[VUS])).endedAt = iso(s.values.max);
  return [...rows.values()].sort((a, b) => a.vus - b.vus);
}

// ---- text ---------------------------------------------------------------------------------------

const s3 = (v) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(3) : '-');
const f2 = (v) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(2) : '-');
const dp = (v) => (typeof v === 'number' && Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(1)}%` : '-');
function pad(cells, widths) {
  return cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
}
const PHASE_TITLE = { baseline: 'baseline', reindex: 'under reindex' };

export function renderSteps(steps) {
  if (steps.length === 0) return 'Search requests: none recorded.\n';
  const out = [];
  for (const st of steps) {
    const w = [Math.max(8, ...st.rows.map((r) => r.name.length + 2)), 6, 7, 6, 6, 6, 6, 6, 6, 6, 7];
    out.push(`${st.vus} user${st.vus === 1 ? '' : 's'}, ${PHASE_TITLE[st.phase] || st.phase} (seconds; >${SEARCH_SLOW_MS}ms = requests over ${SEARCH_SLOW_MS} ms)`);
    out.push(pad(['template', 'total', 'req/s', 'min', 'p50', 'p75', 'p95', 'p99', 'max', 'avg', `>${SEARCH_SLOW_MS}ms`], w));
    for (const r of st.rows) out.push(pad([r.emptyIndex ? `${r.name} *` : r.name, r.total, f2(r.rps), s3(r.min), s3(r.p50), s3(r.p75), s3(r.p95), s3(r.p99), s3(r.max), s3(r.avg), r.slow], w));
    const k = st.kinds;
    out.push(`  averages: regular ${s3(k.regular.avg)} s, wildcard ${s3(k.wildcard.avg)} s, wildcard prefix ${s3(k['wildcard-prefix'].avg)} s`);
    out.push(`  total requests: ${st.total} (${f2(st.rps)} req/s), over ${SEARCH_SLOW_MS} ms: ${st.slow}`);
    out.push('');
  }
  return out.join('\n');
}

export function renderComparison(cmp) {
  if (cmp.length === 0) return '';
  const out = [];
  for (const c of cmp) {
    const w = [Math.max(8, ...c.rows.map((r) => r.name.length)), 7, 7, 7, 7, 7, 7, 7, 7, 7];
    out.push(`${c.vus} user${c.vus === 1 ? '' : 's'}: baseline vs under reindex (seconds; Δ % = reindex / baseline - 1)`);
    out.push(pad(['template', 'avg', 'avg re', 'Δ avg', 'p95', 'p95 re', 'Δ p95', 'req/s', 'rps re', 'Δ req/s'], w));
    for (const r of c.rows) {
      const re = r.reindex || {};
      out.push(pad([r.name, s3(r.baseline.avg), s3(re.avg), dp(r.deltaAvgPct), s3(r.baseline.p95), s3(re.p95), dp(r.deltaP95Pct), f2(r.baseline.rps), f2(re.rps), dp(r.deltaRpsPct)], w));
    }
    out.push(`  total requests: ${c.total.baseline} -> ${c.total.reindex} (${dp(c.total.deltaPct)}), throughput ${f2(c.rps.baseline)} -> ${f2(c.rps.reindex)} req/s (${dp(c.rps.deltaPct)})`);
    out.push('');
  }
  return out.join('\n');
}

export function renderReindex(rows, tenant) {
  if (!tenant) return 'Background reindex: none (set REINDEX_TENANT to run the reindex phase).\n';
  if (rows.length === 0) return `Background reindex of ${tenant}: no reindex recorded.\n`;
  const out = [`Background reindex of ${tenant}`];
  for (const r of rows) {
    const outcomes = Object.entries(r.outcomes).map(([k, n]) => `${n} ${k}`).join(', ') || 'none ended';
    out.push(`  ${r.vus} user${r.vus === 1 ? '' : 's'}: ${r.count} reindex(es), ${outcomes}; duration avg ${s3(r.durationS.avg)} s, max ${s3(r.durationS.max)} s; window ${r.startedAt || '?'} -> ${r.endedAt || '?'}`);
  }
  return out.join('\n') + '\n';
}

function tablesOf(data, meta) {
  const steps = searchTables(data, { templates: meta.templates, stepSeconds: meta.stepSeconds });
  // Rows of a group whose index was empty at the start timed empty answers: marked, not dropped.
  const empty = new Set((meta.emptyIndexes || []).flatMap((e) => e.groups));
  for (const st of steps) for (const r of st.rows) if (empty.has(r.group)) r.emptyIndex = true;
  return { steps, comparison: phaseComparison(steps), reindex: reindexTable(data) };
}

/** The lines saying which groups searched an empty index (none when every index held records). */
export function renderEmptyIndexes(emptyIndexes) {
  return (emptyIndexes || []).map(
    (e) => `Empty index: ${e.records} (${e.path}) held no records when the run started: the ${e.templates} templates of group ${e.groups.join(', ')} (rows marked *) timed empty answers, not searches.`,
  );
}

/**
 * @param {object} meta run metadata plus `templates` ({name, group, kind}[]) and `stepSeconds`
 */
export function renderText(data, meta) {
  const t = tablesOf(data, meta);
  const out = [];
  out.push(`folio-perf ${meta.workflow} run ${meta.testid} (release ${meta.release}, target ${meta.target}, profile ${meta.profile}, tenant ${meta.tenant})`);
  out.push(...renderEmptyIndexes(meta.emptyIndexes));
  out.push('');
  out.push(renderSteps(t.steps));
  const cmp = renderComparison(t.comparison);
  if (cmp) out.push(cmp);
  out.push(renderReindex(t.reindex, meta.reindexTenant));
  out.push(...footerLines(data, meta));
  return out.join('\n') + '\n';
}

/** results/<testid>/summary.json: metadata (without the templates), the tables, thresholds, checks and k6's data. */
export function summaryDocument(data, meta) {
  const { templates, ...m } = meta;
  const t = tablesOf(data, meta);
  return document(data, m, { searchSteps: t.steps, phaseComparison: t.comparison, reindex: t.reindex });
}
