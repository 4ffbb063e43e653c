// The check-in/check-out workflow in the Node tools (found through tools/workflows.mjs): its
// report tables, the release reports' response-time table (seconds; avg, p50, p75, p95 of check-in
// and check-out per user count) and slow-API table (p75 > 100 ms), both as lib/cico/summary.js
// computed them into summary.json; its comparison rows; what its charts follow; how its runners'
// summaries merge; its k8s TestRun. Pure: data in, table blocks out.
import { METRICS, TAGS, SLOW_API_P75_MS } from '../../../lib/metrics.js';
import { parseMetricKey } from '../../../lib/baseline.js';
import { CHECK_IN, CHECK_OUT } from '../../../lib/cico/transactions.js';
import { summaryDocument } from '../../../lib/cico/summary.js';
import { f1, int, plural, signedPct, secondsFormat } from '../format.mjs';
import { deltaPct } from '../stats.mjs';
import { table, cellOf, valueOf } from '../doc.mjs';
import { code, finding, cannot, fig, figValue, versus } from '../findings.mjs';
import { COLUMNS, row, ruleText } from '../compare-tables.mjs';

export const title = 'Check-in/check-out';
// The charts and the longevity section follow each transaction's times over the run (seconds, as
// the release reports write transaction times).
export const series = { measurement: METRICS.transactionDuration, tag: TAGS.transaction, unit: 'transactions/s', timeUnit: 's' };
// The make targets a run needs beyond the stack, k6 and minifolio: none.
export const needs = [];

const TX = [CHECK_IN, CHECK_OUT];
const STATS = ['avg', 'p50', 'p75', 'p95'];

/** User-count steps the run plans: one per user count. */
export function expectedSteps(meta) {
  return (meta.steps || []).length;
}

// The rule a comparison judges transaction times by (seconds, the rule's slack in ms), API times by
// (ms), and counts of requests by.
const TX_CMP = { rule: 'transactions', toMs: 1000 };
const API_CMP = { rule: 'apis', toMs: 1 };

/** The release reports' table 1: one row per user count and transaction, seconds. */
export function responseTimeBlock(rows) {
  const data = rows.flatMap((r) => TX.filter((t) => r[t]).map((t) => ({ vus: r.vus, t, ...r[t] })));
  return table({
    id: 'cico-response-times',
    caption: "Response times (seconds; the sum of a transaction's request times, think time excluded)",
    columns: [
      { label: 'Users', get: (d) => d.vus },
      { label: 'Transaction', get: (d) => d.t },
      ...STATS.map((s) => ({ label: s, align: 'r', unit: 's', get: (d) => d[s], cmp: TX_CMP })),
      { label: 'n', align: 'r', get: (d) => d.count ?? 0, fmt: int, against: false },
    ],
    data,
    key: (d) => `${d.vus}|${d.t}`,
    labelCols: 2,
    empty: 'No completed transactions.',
    source: `summary.json tables.responseTimes (k6 ${METRICS.transactionDuration}{transaction,vus})`,
  });
}

/** Every API's k6 sub-metric per user count: Map "name|vus" -> {name, vus, p75, p95, avg, count} (ms). */
export function apiStats(summary) {
  const out = new Map();
  for (const [key, m] of Object.entries(summary.k6?.metrics || {})) {
    const { metric, tags } = parseMetricKey(key);
    if (metric !== METRICS.httpDuration || !tags[TAGS.name] || !tags[TAGS.vus] || Object.keys(tags).length !== 2 || !m?.values || m.values.count === 0) continue;
    const v = m.values;
    out.set(`${tags[TAGS.name]}|${tags[TAGS.vus]}`, { name: tags[TAGS.name], vus: Number(tags[TAGS.vus]), p75: v['p(75)'] ?? null, p95: v['p(95)'] ?? null, avg: v.avg ?? null, count: v.count ?? null });
  }
  return out;
}

const slowColumns = [
  { label: 'API', wrap: true, get: (d) => d.name },
  { label: 'Users', align: 'r', get: (d) => d.vus },
  { label: 'p75', align: 'r', fmt: f1, get: (d) => d.p75, cmp: API_CMP },
  { label: 'p95', align: 'r', fmt: f1, get: (d) => d.p95, cmp: API_CMP },
  { label: 'avg', align: 'r', fmt: f1, get: (d) => d.avg, against: false },
  { label: 'n', align: 'r', fmt: int, get: (d) => d.count, against: false },
];

/** The release reports' table 3: every API over the slow line (p75 > 100 ms) per user count, ms. */
export function slowApiBlock(rows, summary = null) {
  const stats = summary ? apiStats(summary) : new Map();
  return table({
    id: 'cico-slow-apis',
    caption: `Slow APIs (p75 > ${SLOW_API_P75_MS} ms; milliseconds)`,
    columns: slowColumns,
    data: rows,
    key: (d) => `${d.name}|${d.vus}`,
    labelCols: 2,
    empty: `No API had p75 above ${SLOW_API_P75_MS} ms at any user count.`,
    source: `summary.json tables.slowApis (k6 ${METRICS.httpDuration}{name,vus})`,
    // an API under the line in this run, over it in the other: its figures from k6's sub-metric
    lookup: (key) => (stats.has(key) ? slowColumns.map((c) => c.get(stats.get(key))) : null),
  });
}

/**
 * Every API the run called: p75 per user count, p95 at the most users, and how p75 grew from the
 * fewest users to the most (ms). The worst API and the one that grew most with users are read here.
 */
export function apisBlock(summary) {
  const stats = apiStats(summary);
  const vus = [...new Set([...stats.values()].map((s) => s.vus))].sort((a, b) => a - b);
  const top = vus[vus.length - 1];
  const names = [...new Set([...stats.values()].map((s) => s.name))];
  const data = names.map((name) => {
    const at = (v) => stats.get(`${name}|${v}`) || null;
    const first = vus.find((v) => at(v));
    const last = [...vus].reverse().find((v) => at(v));
    return { name, at, p95: at(top)?.p95 ?? null, growth: vus.length > 1 && first !== last ? deltaPct(at(first).p75, at(last).p75) : null };
  });
  data.sort((a, b) => (b.p95 ?? -1) - (a.p95 ?? -1) || a.name.localeCompare(b.name));
  return table({
    id: 'cico-apis',
    caption: `Every API: p75 per user count, p95 at ${plural(top ?? 0, 'user')}, and p75's growth from ${plural(vus[0] ?? 0, 'user')} to ${plural(top ?? 0, 'user')} (milliseconds; worst p95 first)`,
    columns: [
      { label: 'API', wrap: true, get: (d) => d.name },
      ...vus.map((v) => ({ label: `p75 ${v}`, key: `p75@${v}`, align: 'r', fmt: f1, get: (d) => d.at(v)?.p75 ?? null, cmp: v === top ? API_CMP : undefined, against: v === top })),
      { label: `p95 ${top}`, key: `p95@${top}`, align: 'r', fmt: f1, get: (d) => d.p95, cmp: API_CMP },
      { label: 'p75 growth', align: 'r', fmt: signedPct, get: (d) => d.growth },
    ],
    data,
    key: (d) => d.name,
    empty: 'No API sub-metrics in summary.json.',
    source: `summary.json k6 ${METRICS.httpDuration}{name,vus}`,
  });
}

/** The report's tables of this workflow, from summary.json. */
export function blocks(summary) {
  const t = summary.tables || {};
  return [responseTimeBlock(t.responseTimes || []), slowApiBlock(t.slowApis || [], summary), apisBlock(summary)];
}

// ---- the summary's rules of this workflow (docs/report.md) -----------------------------------

/** The worst API: the highest p95 with the most users (the APIs table's first row). */
export const worstApi = {
  id: 'worst-api',
  title: 'Worst API',
  judge(ctx) {
    const b = ctx.t('cico-apis');
    const top = b.columns.find((c) => /^p95 \d+( B)?$/.test(c.label));
    if (b.rows.length === 0 || !top) return cannot('no per-API figures in summary.json');
    const label = top.label.replace(/ B$/, '');
    return [finding(`Worst API (highest p95 with the most users): ${code(b.rows[0][0])}, ${fig(b, 0, label)} ms${versus(ctx, b, 0, label, ' ms')}`, 'cico-apis', b.keys[0])];
  },
};

/**
 * Check-in and check-out with the most users (and, against a previous release, where they moved
 * most): "X % slower than <release>", as the release reports compared them.
 */
export const transactions = {
  id: 'transactions',
  title: 'Transaction times',
  judge(ctx) {
    const b = ctx.t('cico-response-times');
    const rows = b.keys.map((k, i) => ({ k, i, vus: Number(k.split('|')[0]), t: k.split('|')[1] })).filter((r) => typeof figValue(b, r.i, 'avg') === 'number');
    if (rows.length === 0) return cannot('no completed transaction');
    const top = Math.max(...rows.map((r) => r.vus));
    const out = [];
    const say = (r) => {
      const avg = fig(b, r.i, 'avg');
      const p95 = fig(b, r.i, 'p95');
      if (!b.against) return `${code(r.t)} at ${plural(r.vus, 'user')}: avg ${avg} s, p95 ${p95} s`;
      const d = valueOf(b, r.i, 'Δ avg');
      if (typeof d !== 'number') return `${code(r.t)} at ${plural(r.vus, 'user')}: avg ${avg} s, p95 ${p95} s (${ctx.againstName} has no such row)`;
      const how = d >= 0 ? 'slower' : 'faster';
      return `${code(r.t)} at ${plural(r.vus, 'user')}: avg ${avg} s, ${cellOf(b, r.i, 'Δ avg').replace(/^[+-]/, '')} ${how} than ${ctx.againstName} (${cellOf(b, r.i, 'avg A')} s); p95 ${cellOf(b, r.i, 'Δ p95')}`;
    };
    for (const t of TX) {
      const at = rows.filter((r) => r.t === t);
      const r = at.find((x) => x.vus === top);
      if (r) out.push(finding(say(r), b.id, r.k));
      if (b.against) {
        const moved = at.filter((x) => typeof valueOf(b, x.i, 'Δ avg') === 'number').sort((x, y) => Math.abs(valueOf(b, y.i, 'Δ avg')) - Math.abs(valueOf(b, x.i, 'Δ avg')))[0];
        // the user count where it moved most, when that is not already the one with the most users
        if (moved && moved !== r && Math.abs(valueOf(b, moved.i, 'Δ avg')) > Math.abs(r ? valueOf(b, r.i, 'Δ avg') ?? 0 : 0)) out.push(finding(say(moved), b.id, moved.k));
      }
    }
    return out;
  },
};

/** The APIs over the slow line (p75 > 100 ms) with the most users, slowest first. */
export const slowApis = {
  id: 'slow-apis',
  title: 'APIs over the slow line',
  judge(ctx) {
    const b = ctx.t('cico-slow-apis');
    const over = b.keys.map((k, i) => ({ k, i, vus: Number(k.split('|').pop()), p75: figValue(b, i, 'p75') })).filter((r) => typeof r.p75 === 'number' && r.p75 > SLOW_API_P75_MS);
    if (over.length === 0) return [finding(`No API's p75 exceeded ${SLOW_API_P75_MS} ms at any user count`, b.id)];
    const top = Math.max(...over.map((r) => r.vus));
    return over
      .filter((r) => r.vus === top)
      .sort((x, y) => y.p75 - x.p75)
      .slice(0, 3)
      .map((r) => finding(`${code(b.rows[r.i][0])} over the slow line at ${plural(top, 'user')}: p75 ${fig(b, r.i, 'p75')} ms${versus(ctx, b, r.i, 'p75', ' ms')}`, b.id, r.k));
  },
};

/** The API whose p75 grew most from the fewest users to the most. */
export const apiGrowth = {
  id: 'api-growth',
  title: 'API growth with users',
  judge(ctx) {
    const b = ctx.t('cico-apis');
    const g = b.rows.map((_, i) => ({ i, v: valueOf(b, i, 'p75 growth') })).filter((x) => typeof x.v === 'number');
    if (g.length === 0) return cannot('one user count: no growth with users to judge');
    const best = g.sort((x, y) => y.v - x.v)[0];
    return [finding(`${code(b.rows[best.i][0])}: p75 grew ${cellOf(b, best.i, 'p75 growth')} from the fewest users to the most, the most of any API`, b.id, b.keys[best.i])];
  },
};

/** This workflow's summary rules, after the pass and regression verdicts (tools/report/findings.mjs). */
export const findings = [worstApi, transactions, slowApis, apiGrowth];

// ---- comparison of two runs -------------------------------------------------------------------

export function compareResponseTimes(a, b, rule) {
  const rows = [];
  const vus = [...new Set([...(a.tables?.responseTimes || []), ...(b.tables?.responseTimes || [])].map((r) => r.vus))].sort((x, y) => x - y);
  for (const v of vus) {
    const ra = (a.tables.responseTimes || []).find((r) => r.vus === v) || {};
    const rb = (b.tables.responseTimes || []).find((r) => r.vus === v) || {};
    for (const t of TX) for (const s of ['avg', 'p50', 'p75', 'p95']) rows.push([`${plural(v, 'user')}, ${t} ${s}`, ra[t]?.[s] ?? null, rb[t]?.[s] ?? null]);
  }
  // one number of decimals for the table's seconds (format.mjs secondsFormat)
  const fmt = secondsFormat(rows.flatMap((r) => [r[1], r[2]]));
  rows.splice(0, rows.length, ...rows.map(([label, x, y]) => row(label, x, y, rule, { fmt })));
  return { type: 'table', id: 'cmp-response-times', caption: `Response times (seconds); verdict: ${ruleText(rule)}`, columns: COLUMNS('Users, transaction, stat'), rows, empty: 'Neither run completed a transaction.', source: 'summary.json tables.responseTimes of A and B' };
}

// p75 per API and user count straight from k6's sub-metrics, so an API slow in only one run
// still gets both cells.
function apiP75(summary) {
  const out = new Map();
  for (const [key, m] of Object.entries(summary.k6?.metrics || {})) {
    const { metric, tags } = parseMetricKey(key);
    if (metric === METRICS.httpDuration && tags[TAGS.name] && tags[TAGS.vus] && Object.keys(tags).length === 2 && m?.values?.count !== 0) out.set(`${tags[TAGS.name]}|${tags[TAGS.vus]}`, m.values['p(75)']);
  }
  return out;
}

export function compareSlowApis(a, b, rule) {
  const keys = new Set([...(a.tables?.slowApis || []), ...(b.tables?.slowApis || [])].map((r) => `${r.name}|${r.vus}`));
  const pa = apiP75(a);
  const pb = apiP75(b);
  const rows = [...keys]
    .map((k) => k.split('|'))
    .sort((x, y) => Number(x[1]) - Number(y[1]) || x[0].localeCompare(y[0]))
    .map(([name, vus]) => row(`${name} (${plural(Number(vus), 'user')})`, pa.get(`${name}|${vus}`) ?? null, pb.get(`${name}|${vus}`) ?? null, rule, { fmt: f1, toMs: 1 }));
  return { type: 'table', id: 'cmp-slow-apis', caption: `APIs slow (p75 > ${SLOW_API_P75_MS} ms) in either run: p75 in ms; verdict: ${ruleText(rule)}`, columns: COLUMNS('API (users)'), rows, empty: 'No API was slow in either run.', source: `summary.json tables.slowApis and k6 ${METRICS.httpDuration}{name,vus} of A and B` };
}

/** The comparison's tables of this workflow: response times by the transaction rule, slow APIs by the API rule. */
export function compareBlocks(a, b, rules) {
  return [compareResponseTimes(a, b, rules.transactions), compareSlowApis(a, b, rules.apis)];
}

/** summary.json of a run split over runners, from their merged k6 data (tools/verdict/merge-summary.mjs). */
export function summarize(data, meta) {
  return summaryDocument(data, meta);
}

// Its k6-operator TestRun (tools/k8s-base.mjs): every pod selects its test data from FOLIO's
// database, so it needs the database password from the Secret.
export const k8s = {
  head: [
    '# Check-in/check-out (scripts/check-in-check-out.js) split over `parallelism` k6 pods. Every pod',
    "# selects its test data from FOLIO's database (DATA=db in the env file) and keeps only the items",
    "# and patrons of its execution segment (lib/segments.js), so runners never collide; each pod's",
    "# teardown checks in only its own segment's loans. The verdict over all pods' samples:",
    '#   node tools/folio-perf.mjs verdict <TESTID> --influx <InfluxDB URL>',
  ],
  secrets: ['FOLIO_DB_PASSWORD'],
};

