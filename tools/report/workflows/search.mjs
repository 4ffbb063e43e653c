// The mod-search workflow in the Node tools (found through tools/workflows.mjs): its report
// tables, from the tables lib/search/summary.js wrote into summary.json (never recomputed here):
// per user count and phase the per-template table, the averages per kind and the requests over
// 700 ms; baseline vs under reindex; the background reindexes. Its comparison rows, what its charts
// follow, how its runners' summaries merge, its k8s TestRun, what a run needs. Pure.
import { METRICS, TAGS, SEARCH_SLOW_MS, SEARCH_KINDS } from '../../../lib/metrics.js';
import { summaryDocument } from '../../../lib/search/summary.js';
import { TEMPLATES } from '../../../lib/search/templates.js';
import { s3, f1, f2, int, signedPct, plural } from '../format.mjs';
import { deltaPct } from '../stats.mjs';
import { table, cellOf, valueOf } from '../doc.mjs';
import { code, finding, cannot, fig, figValue, versus } from '../findings.mjs';
import { COLUMNS, row, ruleText } from '../compare-tables.mjs';

export const title = 'mod-search';
// The charts and the longevity section follow each template group's request times (milliseconds:
// requests are APIs).
export const series = { measurement: METRICS.httpDuration, tag: TAGS.group, unit: 'requests/s', timeUnit: 'ms' };
// A run needs OpenSearch (minifolio's mod-search) and the query files.
export const needs = ['opensearch', 'search-data'];

/** User-count steps the run plans: each user count once per phase. */
export function expectedSteps(meta) {
  return (meta.steps || []).length * (meta.phases || ['baseline']).length;
}

const PHASE = { baseline: 'baseline', reindex: 'under reindex' };
// summary.json keeps the mod-search report's seconds; the report shows requests in milliseconds.
const ms = (v) => (typeof v === 'number' && Number.isFinite(v) ? v * 1000 : null);
// A request's time is judged by the rule for transactions (a search is the user's whole wait).
const CMP = { rule: 'transactions', toMs: 1 };
const RPS = { rule: 'resources', toMs: 1, better: 'higher' };

export function stepBlock(st) {
  const stat = (label, get, extra = {}) => ({ label, align: 'r', fmt: f1, get: (r) => ms(get(r)), ...extra });
  return table({
    id: `search-${st.vus}-${st.phase}`,
    caption: `${plural(st.vus, 'user')}, ${PHASE[st.phase] || st.phase} (milliseconds; >${SEARCH_SLOW_MS} ms = requests over ${SEARCH_SLOW_MS} ms)`,
    columns: [
      { label: 'Template', wrap: true, get: (r) => r.name },
      { label: 'Total', align: 'r', fmt: int, get: (r) => r.total },
      { label: 'Req/s', align: 'r', fmt: f2, get: (r) => r.rps, against: false },
      stat('Min', (r) => r.min, { against: false }),
      stat('p50', (r) => r.p50, { against: false }),
      stat('p75', (r) => r.p75, { against: false }),
      stat('p95', (r) => r.p95, { cmp: CMP }),
      stat('p99', (r) => r.p99, { against: false }),
      stat('Max', (r) => r.max, { against: false }),
      stat('Avg', (r) => r.avg, { cmp: CMP }),
      { label: `>${SEARCH_SLOW_MS} ms`, align: 'r', fmt: int, get: (r) => r.slow },
    ],
    data: st.rows,
    key: (r) => r.name,
    empty: 'No search request recorded.',
    source: 'summary.json tables.searchSteps (lib/search/summary.js)',
  });
}

const stepKey = (st) => `${st.vus}|${st.phase}`;

export function averagesBlock(steps) {
  const kind = (k) => ({ label: `${k === 'regular' ? 'Regular' : k === 'wildcard' ? 'Wildcard' : 'Wildcard prefix'} avg`, align: 'r', fmt: f1, get: (st) => ms(st.kinds?.[k]?.avg), cmp: CMP });
  return table({
    id: 'search-averages',
    caption: "Group averages and totals (milliseconds; a kind's average weighs each template by its requests)",
    columns: [
      { label: 'Users', get: (st) => st.vus },
      { label: 'Phase', get: (st) => PHASE[st.phase] || st.phase },
      ...SEARCH_KINDS.map(kind),
      { label: 'Requests', align: 'r', fmt: int, get: (st) => st.total },
      { label: 'Req/s', align: 'r', fmt: f2, get: (st) => st.rps, cmp: RPS },
      { label: `>${SEARCH_SLOW_MS} ms`, align: 'r', fmt: int, get: (st) => st.slow, against: false },
    ],
    data: steps,
    key: stepKey,
    labelCols: 2,
    empty: 'No search request recorded.',
    source: 'summary.json tables.searchSteps (lib/search/summary.js)',
  });
}

/**
 * Per user count and template group (PTF's fragments): the requests' average at baseline and under
 * the background reindex (each template weighed by its requests), and the reindex's cost (Δ %).
 */
export function groupRows(steps) {
  const out = [];
  const vus = [...new Set(steps.map((st) => st.vus))].sort((a, b) => a - b);
  for (const v of vus) {
    const avgOf = (phase, group) => {
      const rows = (steps.find((st) => st.vus === v && st.phase === phase)?.rows || []).filter((r) => r.group === group && r.total > 0 && Number.isFinite(r.avg));
      const n = rows.reduce((a, r) => a + r.total, 0);
      return n ? { avg: rows.reduce((a, r) => a + r.avg * r.total, 0) / n, total: n } : null;
    };
    const groups = [...new Set(steps.filter((st) => st.vus === v).flatMap((st) => st.rows.map((r) => r.group)))].filter(Boolean).sort();
    for (const g of groups) {
      const b = avgOf('baseline', g);
      const r = avgOf('reindex', g);
      out.push({ vus: v, group: g, total: b?.total ?? null, baseline: b?.avg ?? null, reindex: r?.avg ?? null, cost: deltaPct(b?.avg, r?.avg) });
    }
  }
  return out;
}

export function groupsBlock(steps) {
  const reindex = steps.some((st) => st.phase === 'reindex');
  return table({
    id: 'search-groups',
    caption: `Template groups per user count: average request time (milliseconds)${reindex ? ', baseline and under the background reindex, and the reindex\'s cost' : ''}`,
    columns: [
      { label: 'Group', get: (r) => r.group },
      { label: 'Users', align: 'r', get: (r) => r.vus },
      { label: 'Requests', align: 'r', fmt: int, get: (r) => r.total, against: false },
      { label: 'Avg', align: 'r', fmt: f1, get: (r) => ms(r.baseline), cmp: CMP },
      ...(reindex
        ? [
            { label: 'Avg under reindex', align: 'r', fmt: f1, get: (r) => ms(r.reindex), cmp: CMP },
            { label: 'Reindex cost', align: 'r', fmt: signedPct, get: (r) => r.cost },
          ]
        : []),
    ],
    data: groupRows(steps),
    key: (r) => `${r.group}|${r.vus}`,
    labelCols: 2,
    empty: 'No search request recorded.',
    source: 'summary.json tables.searchSteps (lib/search/summary.js), weighed by requests',
  });
}

export function phaseBlocks(cmp) {
  return cmp.map((c) =>
    table({
      id: `search-phases-${c.vus}`,
      caption: `${plural(c.vus, 'user')}: baseline vs under reindex (milliseconds; Δ = reindex / baseline - 1); requests ${c.total.baseline} → ${c.total.reindex} (${signedPct(c.total.deltaPct)}), ${f2(c.rps.baseline)} → ${f2(c.rps.reindex)} req/s`,
      columns: [
        { label: 'Template', wrap: true, get: (r) => r.name },
        { label: 'Avg', align: 'r', fmt: f1, get: (r) => ms(r.baseline.avg) },
        { label: 'Avg reindex', align: 'r', fmt: f1, get: (r) => ms(r.reindex?.avg) },
        { label: 'Δ avg', align: 'r', fmt: signedPct, get: (r) => r.deltaAvgPct },
        { label: 'p95', align: 'r', fmt: f1, get: (r) => ms(r.baseline.p95) },
        { label: 'p95 reindex', align: 'r', fmt: f1, get: (r) => ms(r.reindex?.p95) },
        { label: 'Δ p95', align: 'r', fmt: signedPct, get: (r) => r.deltaP95Pct },
        { label: 'Req/s', align: 'r', fmt: f2, get: (r) => r.baseline.rps },
        { label: 'Req/s reindex', align: 'r', fmt: f2, get: (r) => r.reindex?.rps },
        { label: 'Δ req/s', align: 'r', fmt: signedPct, get: (r) => r.deltaRpsPct },
      ],
      data: c.rows,
      key: (r) => r.name,
      source: 'summary.json tables.phaseComparison (lib/search/summary.js)',
    }),
  );
}

export function reindexBlock(rows, tenant) {
  return table({
    id: 'search-reindex',
    caption: `${tenant ? `Background reindex of ${tenant}` : 'Background reindex'} (durations in seconds)`,
    columns: [
      { label: 'Users', get: (r) => r.vus },
      { label: 'Reindexes', align: 'r', fmt: int, get: (r) => r.count },
      { label: 'Outcomes', get: (r) => Object.entries(r.outcomes || {}).map(([k, n]) => `${n} ${k}`).join(', ') || 'none ended' },
      { label: 'Avg s', align: 'r', fmt: s3, get: (r) => r.durationS?.avg },
      { label: 'Max s', align: 'r', fmt: s3, get: (r) => r.durationS?.max },
      { label: 'Started', get: (r) => r.startedAt || '-' },
      { label: 'Ended', get: (r) => r.endedAt || '-' },
    ],
    data: rows,
    key: (r) => String(r.vus),
    empty: tenant ? 'No reindex recorded.' : 'None (the run had no reindex phase: REINDEX_TENANT was not set).',
    source: 'summary.json tables.reindex (lib/search/summary.js)',
  });
}

// ---- the summary's rules of this workflow (docs/report.md) -----------------------------------

const lastKey = (ctx, phase) => {
  const steps = ctx.data.steps.filter((st) => !phase || st.phase === phase);
  return steps.length ? steps[steps.length - 1] : null;
};

/** The worst request: the template with the highest p95 at the most users, baseline phase. */
export const worstTemplate = {
  id: 'worst-template',
  title: 'Worst request',
  judge(ctx) {
    const st = lastKey(ctx, 'baseline');
    const b = st && ctx.t(`search-${st.vus}-baseline`);
    if (!b || b.rows.length === 0) return cannot('no search request recorded');
    let w = 0;
    b.rows.forEach((_, i) => {
      if ((figValue(b, i, 'p95') ?? -1) > (figValue(b, w, 'p95') ?? -1)) w = i;
    });
    return [finding(`Worst request (highest p95 with the most users, baseline): ${code(b.rows[w][0])}, ${fig(b, w, 'p95')} ms${versus(ctx, b, w, 'p95', ' ms')}`, b.id, b.keys[w])];
  },
};

/** The slowest template group at the most users (baseline), PTF's fragments. */
export const slowestGroup = {
  id: 'slowest-group',
  title: 'Slowest template group',
  judge(ctx) {
    const b = ctx.t('search-groups');
    const rows = b.keys.map((k, i) => ({ k, i, vus: Number(k.split('|')[1]), avg: figValue(b, i, 'Avg') })).filter((r) => typeof r.avg === 'number');
    if (rows.length === 0) return cannot('no search request recorded');
    const top = Math.max(...rows.map((r) => r.vus));
    const r = rows.filter((x) => x.vus === top).sort((x, y) => y.avg - x.avg)[0];
    return [finding(`Slowest group at ${plural(top, 'user')}: ${code(b.rows[r.i][0])}, average ${fig(b, r.i, 'Avg')} ms${versus(ctx, b, r.i, 'Avg', ' ms')}`, b.id, r.k)];
  },
};

/** What the background reindex of another tenant cost: the group it slowed most, at the most users. */
export const reindexCost = {
  id: 'reindex-cost',
  title: 'Cost of the background reindex',
  judge(ctx) {
    const b = ctx.t('search-groups');
    if (!b.columns.some((c) => c.label === 'Reindex cost')) return cannot('the run had no reindex phase (REINDEX_TENANT not set)');
    const rows = b.keys.map((k, i) => ({ k, i, vus: Number(k.split('|')[1]), cost: valueOf(b, i, 'Reindex cost') })).filter((r) => typeof r.cost === 'number');
    if (rows.length === 0) return cannot('no group ran in both phases');
    const top = Math.max(...rows.map((r) => r.vus));
    const r = rows.filter((x) => x.vus === top).sort((x, y) => y.cost - x.cost)[0];
    const what = r.cost > 0 ? 'the group the reindex slowed most' : 'no group was slower under reindex; the largest change';
    return [finding(`Reindex cost at ${plural(top, 'user')}: ${code(b.rows[r.i][0])} ${cellOf(b, r.i, 'Reindex cost')}, ${what} (average ${fig(b, r.i, 'Avg')} ms, ${fig(b, r.i, 'Avg under reindex')} ms under reindex)`, b.id, r.k)];
  },
};

/** This workflow's summary rules, after the pass and regression verdicts (tools/report/findings.mjs). */
export const findings = [worstTemplate, slowestGroup, reindexCost];

/** The report's tables of this workflow, from summary.json. */
export function blocks(summary) {
  const t = summary.tables || {};
  const steps = t.searchSteps || [];
  return [averagesBlock(steps), groupsBlock(steps), ...steps.map(stepBlock), ...phaseBlocks(t.phaseComparison || []), reindexBlock(t.reindex || [], summary.meta?.reindexTenant)];
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
