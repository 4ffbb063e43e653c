// Baseline format 2 (`folio-perf-baseline/2`): what the statistical comparison needs from several
// runs of the same system. Built from each run's raw samples in InfluxDB (all runners of a testid),
// not from k6's five-number summary. `folio-perf baseline <testid> <testid> ...` writes it.
//
// {
//   "format": "folio-perf-baseline/2", "workflow": "cico", "release": "fast",
//   "profile": "smoke", "steps": [1], "think": "none",        // every run must agree on these
//   "testid": "<first run>", "created": "...", "source": "InfluxDB raw samples",
//   "runs": [{ "testid", "startedAt", "stepDuration" }, ...],
//   "stat": "p(95)",
//   "metrics": {                                              // the judged metrics: transactions + slow APIs
//     "transaction_duration{transaction:check-out}": {
//       "runs": [{ "testid", "n", "q": 63.9, "logQ": 4.157, "se": 0.031,        // per run: p95 and its log's
//                  "p50": { "q", "logQ", "se" },                                 // sampling error, the same of p50,
//                  "histogram": { "lowMs", "perDecade", "counts": {bin: n} } }], // the distribution
//       "spreadPct": 6.1                                      // this metric's run-to-run sd of p95 (%), for reading
//     }, ...
//   },
//   "spread": { "tau2": 0.0021, "df": 6, "metrics": 7, "pct": 4.7 },  // between-run spread of p95 pooled over metrics
//   "spreadP50": { ... },                                              // the same of p50
//   "transactions": { "check-out": { "count", "avg", "p(95)", ... } }, // all runs' samples pooled, format 1's shape,
//   "apis": { "GET /users": { ... } }                                  //   so BASELINE=… (k6's thresholds) reads it too
// }
import { runQuantileStats, histogramOf, quantileSorted, variance, mean } from './stats.mjs';
import { pooledSpread } from './method.mjs';
import { rowsOf } from '../report/influx.mjs';
import { ReportError } from '../report/errors.mjs';
import { METRICS, TAGS, txKey, apiKey } from '../../lib/metrics.js';

export const BASELINE_FORMAT_2 = 'folio-perf-baseline/2';
export const STAT = 'p(95)';
const P = 0.95;


// InfluxQL string literal.
const lit = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * Raw samples of one testid: { transactions: {name: number[]}, apis: {name: number[]} }.
 * Every runner's points (the testid tag), the metric's whole run; with windowSeconds only those of
 * the run's first windowSeconds (make bench-gate: what a shorter run would have seen).
 */
export async function readRunSamples(client, testid, { windowSeconds = null } = {}) {
  const out = { transactions: {}, apis: {} };
  const tx = rowsOf(await client.query(`SELECT "value" FROM "${METRICS.transactionDuration}" WHERE "testid" = ${lit(testid)} GROUP BY "${TAGS.transaction}"`, `raw transactions ${testid}`));
  const api = rowsOf(await client.query(`SELECT "value" FROM "${METRICS.httpDuration}" WHERE "testid" = ${lit(testid)} GROUP BY "${TAGS.name}"`, `raw apis ${testid}`));
  const t0 = Math.min(...[...tx, ...api].flatMap((s) => s.rows.map((r) => Number(r.time))));
  const end = windowSeconds ? t0 + windowSeconds * 1000 : Infinity;
  const values = (s) => s.rows.filter((r) => typeof r.value === 'number' && Number(r.time) < end).map((r) => r.value);
  for (const s of tx) out.transactions[s.tags[TAGS.transaction]] = values(s);
  for (const s of api) if (s.tags[TAGS.name]) out.apis[s.tags[TAGS.name]] = values(s);
  return out;
}

const KEPT = [['p(50)', 0.5], ['p(75)', 0.75], ['p(90)', 0.9], ['p(95)', 0.95], ['p(99)', 0.99]];
function summaryStats(samples) {
  const s = Float64Array.from(samples).sort();
  const out = { count: s.length, avg: mean(Array.from(s)), min: s[0], med: quantileSorted(s, 0.5), max: s[s.length - 1] };
  for (const [k, p] of KEPT) out[k] = quantileSorted(s, p);
  return out;
}

const SAME = ['workflow', 'release', 'profile', 'think'];

/**
 * The format-2 document from runs [{ meta: {testid, workflow, release, profile, steps, think,
 * startedAt, stepDuration}, samples: readRunSamples(...) }]. slowApis: the API names judged beside
 * the transactions (thresholds.json's `apis` of the workflow). Throws a one-line ReportError when
 * the runs are not of one system and load.
 */
export function buildBaseline(runs, { slowApis = [], created = new Date().toISOString(), minSamples = 100 } = {}) {
  if (runs.length === 0) throw new ReportError('no run given; fix: folio-perf baseline <testid> <testid> [...] (2 or more runs of the same system)');
  const first = runs[0].meta;
  for (const r of runs.slice(1)) {
    for (const k of SAME) {
      if (String(r.meta[k]) !== String(first[k])) throw new ReportError(`${r.meta.testid} has ${k} "${r.meta[k]}", ${first.testid} has "${first[k]}"; fix: record a baseline from runs of one ${k} (same workflow, system, profile and think time)`);
    }
    if (JSON.stringify(r.meta.steps) !== JSON.stringify(first.steps)) throw new ReportError(`${r.meta.testid} ran user steps ${JSON.stringify(r.meta.steps)}, ${first.testid} ${JSON.stringify(first.steps)}; fix: record a baseline from runs of the same user counts`);
  }
  const txNames = [...new Set(runs.flatMap((r) => Object.keys(r.samples.transactions)))].sort();
  if (txNames.length === 0) throw new ReportError(`${runs.map((r) => r.meta.testid).join(', ')}: no ${METRICS.transactionDuration} samples in InfluxDB; fix: give runs that completed transactions, and the InfluxDB they wrote to (--influx)`);
  const apiNames = slowApis.filter((n) => runs.some((r) => (r.samples.apis[n] || []).length > 0));
  const metrics = {};
  const judged = [...txNames.map((t) => [txKey(t), (r) => r.samples.transactions[t]]), ...apiNames.map((n) => [apiKey(n), (r) => r.samples.apis[n]])];
  for (const [key, pick] of judged) {
    const perRun = runs.map((r) => {
      const xs = pick(r) || [];
      const st = runQuantileStats(xs, P);
      const med = runQuantileStats(xs, 0.5);
      return { testid: r.meta.testid, n: st.n, q: st.q, logQ: st.logQ, se: st.se, p50: { q: med.q, logQ: med.logQ, se: med.se }, histogram: histogramOf(xs) };
    });
    const ok = perRun.filter((r) => r.n >= minSamples);
    metrics[key] = { runs: perRun, spreadPct: ok.length >= 2 ? (Math.exp(Math.sqrt(variance(ok.map((r) => r.logQ)))) - 1) * 100 : null };
  }
  const spread = pooledSpread(Object.fromEntries(Object.entries(metrics).map(([k, m]) => [k, m.runs])), { minSamples });
  const spread50 = pooledSpread(Object.fromEntries(Object.entries(metrics).map(([k, m]) => [k, m.runs.map((r) => ({ n: r.n, ...r.p50 }))])), { minSamples });
  const pooled = (get) => {
    const out = {};
    for (const name of get.names) {
      const xs = runs.flatMap((r) => get.of(r)[name] || []);
      if (xs.length > 0) out[name] = summaryStats(xs);
    }
    return out;
  };
  const allApis = [...new Set(runs.flatMap((r) => Object.keys(r.samples.apis)))].sort();
  return {
    format: BASELINE_FORMAT_2,
    workflow: first.workflow,
    release: first.release,
    profile: first.profile,
    steps: first.steps,
    think: first.think,
    testid: first.testid,
    created,
    source: 'InfluxDB raw samples',
    runs: runs.map((r) => ({ testid: r.meta.testid, startedAt: r.meta.startedAt ?? null, stepDuration: r.meta.stepDuration ?? null })),
    stat: STAT,
    metrics,
    spread: { ...spread, pct: spread.tau2 === null ? null : (Math.exp(Math.sqrt(spread.tau2)) - 1) * 100 },
    spreadP50: { ...spread50, pct: spread50.tau2 === null ? null : (Math.exp(Math.sqrt(spread50.tau2)) - 1) * 100 },
    transactions: pooled({ names: txNames, of: (r) => r.samples.transactions }),
    apis: pooled({ names: allApis, of: (r) => r.samples.apis }),
  };
}

/** Throws a one-line ReportError unless doc is a format-2 baseline (file names it in messages). */
export function validateBaseline2(doc, file) {
  const bad = (problem, fix) => {
    throw new ReportError(`${file}: ${problem}; fix: ${fix}`);
  };
  const again = 'record it again with `folio-perf baseline <testid> <testid> ...`';
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) bad('is not a JSON object', again);
  if (doc.format === 'folio-perf-baseline/1') bad("is format 1 (one run's percentiles): the statistical verdict needs each run's distribution and the between-run spread", 'record a format-2 baseline from 2 or more runs with `folio-perf baseline <testid> <testid> ...`');
  if (doc.format !== BASELINE_FORMAT_2) bad(`format is ${JSON.stringify(doc.format)}, expected "${BASELINE_FORMAT_2}"`, again);
  if (typeof doc.workflow !== 'string' || !doc.workflow) bad('names no workflow', again);
  if (doc.metrics === null || typeof doc.metrics !== 'object' || Object.keys(doc.metrics).length === 0) bad('has no metrics', again);
  for (const [k, m] of Object.entries(doc.metrics)) {
    if (!m || !Array.isArray(m.runs)) bad(`metrics["${k}"] has no runs`, again);
    for (const r of m.runs) {
      if (!r || typeof r.n !== 'number' || (r.n > 0 && (typeof r.logQ !== 'number' || typeof r.se !== 'number'))) bad(`metrics["${k}"] has a run without n, logQ and se`, again);
    }
  }
  return doc;
}

/** Several format-2 baselines of one system as one: their runs together, per metric. */
export function mergeBaselines(docs, files) {
  const first = docs[0];
  docs.forEach((d, i) => {
    for (const k of ['workflow', 'profile', 'think']) {
      if (String(d[k]) !== String(first[k])) throw new ReportError(`${files[i]} has ${k} "${d[k]}", ${files[0]} has "${first[k]}"; fix: give baselines of the same workflow, profile and think time`);
    }
  });
  const metrics = {};
  for (const d of docs) for (const [k, m] of Object.entries(d.metrics)) (metrics[k] ||= { runs: [] }).runs.push(...m.runs);
  return { ...first, runs: docs.flatMap((d) => d.runs || []), metrics };
}
