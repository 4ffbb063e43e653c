// The Verdict section's tables: did the run pass (every threshold k6 judged, with the figure it
// judged), did it regress (against the previous release: how many compared rows regressed, per
// table; against a baseline file: its whole-run percentiles beside this run's), did its checks
// hold. The summary's first findings cite these rows. Pure.
import { txKey, apiKey } from '../../lib/metrics.js';
import { f1, int, signedPct } from './format.mjs';
import { deltaPct } from './stats.mjs';
import { table, plain } from './doc.mjs';
import { judge, ruleText } from './against.mjs';

// The statistic a threshold expression judges: "p(95)<2000" -> p(95); "rate<=0.01" -> rate.
const statOf = (expr) => (/^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)/.exec(expr) || [])[1] || null;

/** Every threshold with the value k6 judged: [{metric, expr, ok, measured}]. */
export function thresholdRows(summary) {
  const metrics = summary.k6?.metrics || {};
  return (summary.thresholds || []).map((t) => {
    const stat = statOf(t.expr);
    const v = metrics[t.metric]?.values?.[stat];
    return { ...t, stat, measured: typeof v === 'number' ? v : null };
  });
}

// A measured value as the rule writes its limit: milliseconds to 0.1, rates and counts as they are.
export const measuredText = (r) => (r.measured === null ? '-' : /^p\(|^avg|^med|^min|^max/.test(r.stat) ? `${f1(r.measured)} ms` : String(Number(r.measured.toPrecision(4))));

export function thresholdsBlock(summary) {
  return table({
    id: 'thresholds',
    caption: "Thresholds (thresholds.json's SLOs, and a baseline's limits when the run was gated against one) and the figure k6 judged",
    columns: [
      { label: 'Metric', wrap: true, get: (r) => r.metric },
      { label: 'Rule', get: (r) => r.expr },
      { label: 'Measured', align: 'r', get: (r) => r, fmt: measuredText },
      { label: 'Result', get: (r) => (r.ok ? 'passed' : 'FAILED') },
    ],
    data: thresholdRows(summary),
    key: (r) => `${r.metric} ${r.expr}`,
    labelCols: 2,
    empty: 'No thresholds: the run judged nothing (thresholds.json has no section for this workflow).',
    source: 'summary.json thresholds (k6 handleSummary: each threshold\'s ok) and k6.metrics',
  });
}

/**
 * The verdict's three rows. compared: {label, tally: [{compared, regressed, improved}]} of a
 * comparison, or null; notJudged: why no regression verdict was given.
 */
export function verdictBlock(summary, compared, notJudged) {
  const th = summary.thresholds || [];
  const failed = th.filter((t) => !t.ok).length;
  const rows = [
    { key: 'slo', q: 'SLO thresholds', a: th.length === 0 ? 'none set' : failed ? 'FAILED' : 'passed', f: th.length === 0 ? '-' : failed ? `${failed} of ${th.length} failed` : `${th.length} of ${th.length} held` },
  ];
  if (compared) {
    const sum = (k) => compared.tally.reduce((a, t) => a + t[k], 0);
    const [n, reg, imp] = [sum('compared'), sum('regressed'), sum('improved')];
    rows.push({ key: 'regression', q: `Regression against ${compared.label}`, a: reg ? 'regressed' : 'no regression', f: `${reg} of ${n} compared rows regressed, ${imp} improved` });
  } else {
    rows.push({ key: 'regression', q: 'Regression', a: 'not judged', f: notJudged });
  }
  const c = summary.checks;
  if (c) rows.push({ key: 'checks', q: 'Checks', a: c.passes + c.fails === 0 ? 'none recorded' : c.fails ? 'some failed' : 'all passed', f: `${c.passes} of ${c.passes + c.fails} passed` });
  return table({
    id: 'verdict',
    caption: 'Verdict',
    columns: [{ label: 'Question', get: (r) => r.q }, { label: 'Answer', get: (r) => r.a }, { label: 'Figures', wrap: true, get: (r) => r.f, fmt: plain }],
    data: rows,
    key: (r) => r.key,
    source: 'summary.json thresholds and checks; the comparison tables below',
  });
}

/** Per compared table: its rows compared, regressed, improved; and the total. */
export function comparisonBlock(tally, titles) {
  const total = { id: 'all', compared: 0, regressed: 0, improved: 0 };
  for (const t of tally) for (const k of ['compared', 'regressed', 'improved']) total[k] += t[k];
  return table({
    id: 'comparison',
    caption: 'Rows compared with the previous release, per table (verdicts by the regression gate\'s rule)',
    columns: [
      { label: 'Table', wrap: true, get: (t) => (t.id === 'all' ? 'all tables' : titles(t.id)) },
      { label: 'Rows compared', align: 'r', fmt: int, get: (t) => t.compared },
      { label: 'Regressed', align: 'r', fmt: int, get: (t) => t.regressed },
      { label: 'Improved', align: 'r', fmt: int, get: (t) => t.improved },
    ],
    data: [...tally, total],
    key: (t) => t.id,
    source: 'the Verdict columns of the tables below',
  });
}

/**
 * Against a baseline file (baselines/<name>.json: whole-run percentiles, no user counts): each
 * transaction's and gated API's stats (the gate's, thresholds.json regression.*.stats) in the
 * baseline (A) beside this run's over the whole run (B), each judged by its own rule.
 */
export function baselineBlock(summary, baseline, regression, rules, label) {
  const metrics = summary.k6?.metrics || {};
  const rows = [];
  const add = (kind, name, key, stats) => {
    for (const s of stats) {
      const a = baseline[kind]?.[name]?.[s] ?? null;
      const b = metrics[key]?.values?.[s] ?? null;
      const d = deltaPct(a, b);
      const v = judge(a, b, { rule: kind, toMs: 1 }, rules);
      rows.push({ name, stat: s, a, b, d, v: v === 'regressed' || v === 'improved' ? `${v}: ${s}` : v });
    }
  };
  if (regression.transactions) for (const t of Object.keys(baseline.transactions || {})) add('transactions', t, txKey(t), regression.transactions.stats);
  const ap = regression.apis;
  if (ap) for (const n of Object.keys(baseline.apis || {})) if (!ap.names || ap.names.includes(n)) add('apis', n, apiKey(n), ap.stats);
  const b = table({
    id: 'baseline-comparison',
    caption: `Whole-run percentiles (milliseconds): A = ${label}, B = this run; verdict: transactions ${ruleText(rules.transactions)}, APIs ${ruleText(rules.apis)}`,
    columns: [
      { label: 'Transaction or API', wrap: true, get: (r) => r.name },
      { label: 'Stat', get: (r) => r.stat },
      { label: 'A', align: 'r', fmt: f1, get: (r) => r.a },
      { label: 'B', align: 'r', fmt: f1, get: (r) => r.b },
      { label: 'Δ', align: 'r', fmt: signedPct, get: (r) => r.d },
      { label: 'Verdict', get: (r) => r.v },
    ],
    data: rows,
    key: (r) => `${r.name}|${r.stat}`,
    labelCols: 2,
    empty: 'The baseline and this run share no transaction or API.',
    source: 'the baseline file; summary.json k6 metrics over the whole run',
  });
  b.comparisons = rows.map((r) => ({ verdict: r.v, columns: [{ label: r.stat, a: r.a, b: r.b, delta: r.d, verdict: r.v.split(':')[0] }] }));
  return b;
}
