// Baseline files (baselines/<name>.json): the percentiles of one reference run, against which a
// later run is gated (lib/thresholds.js). Made from k6's handleSummary `data` by fromSummary();
// `folio-perf baseline` writes the same shape from results/<testid>/summary.json.
//
// {
//   "format": "folio-perf-baseline/1",
//   "workflow": "cico", "release": "fast", "testid": "cico-20261122T040000Z-fast",
//   "created": "2026-11-22T04:10:00.000Z", "source": "k6 handleSummary",
//   "transactions": { "check-out": { "count": 812, "avg": 9.1, "p(50)": 8.2, "p(75)": 10.3, "p(95)": 15.9, ... }, ... },
//   "apis": { "GET /automated-patron-blocks/{id}": { "count": 1624, "p(95)": 2.1, ... }, ... }
// }
// Times in milliseconds, as k6 reports them.
//
// Format 2 (`folio-perf-baseline/2`, tools/verdict/baseline-format.mjs) is what `folio-perf
// baseline <testid> <testid> ...` writes now: several runs, each run's distribution, the between-run
// spread, for `folio-perf verdict`. It carries `transactions` and `apis` in this shape too (all its
// runs' samples pooled), so BASELINE=… reads either format.

import { METRICS, TAGS, txKey } from './metrics.js';

export const BASELINE_FORMAT = 'folio-perf-baseline/1';
export const BASELINE_FORMATS = [BASELINE_FORMAT, 'folio-perf-baseline/2'];

export class BaselineError extends Error {
  constructor(message) {
    super(message);
    this.name = 'BaselineError';
  }
}

const KEPT_STATS = ['count', 'avg', 'min', 'med', 'max', 'p(50)', 'p(75)', 'p(90)', 'p(95)', 'p(99)'];

// "metric{a:b,c:d}" -> { metric, tags: {a: 'b', c: 'd'} }, as k6 names sub-metrics.
export function parseMetricKey(key) {
  const open = key.indexOf('{');
  if (open < 0 || !key.endsWith('}')) return { metric: key, tags: {} };
  const tags = {};
  for (const part of key.slice(open + 1, -1).split(',')) {
    const i = part.indexOf(':');
    if (i > 0) tags[part.slice(0, i).trim()] = part.slice(i + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return { metric: key.slice(0, open), tags };
}

function pickStats(values) {
  const out = {};
  for (const s of KEPT_STATS) if (typeof values[s] === 'number' && Number.isFinite(values[s])) out[s] = values[s];
  return out;
}

/**
 * A baseline from handleSummary data: one entry per transaction and per API (sub-metrics tagged only
 * by `transaction` or only by `name`, i.e. over the whole run, not per `vus`).
 */
export function fromSummary(data, meta) {
  if (!data || typeof data.metrics !== 'object') throw new BaselineError('summary: no "metrics" object; fix: pass the data k6 gives handleSummary, or a results/<testid>/summary.json');
  for (const k of ['workflow', 'release', 'testid']) {
    if (!meta || typeof meta[k] !== 'string' || meta[k] === '') throw new BaselineError(`baseline: "${k}" is missing; fix: pass the run's ${k}`);
  }
  const transactions = {};
  const apis = {};
  for (const [key, m] of Object.entries(data.metrics)) {
    if (!m || !m.values || m.type !== 'trend') continue;
    const { metric, tags } = parseMetricKey(key);
    const tagNames = Object.keys(tags);
    if (metric === METRICS.transactionDuration && tagNames.length === 1 && tags[TAGS.transaction]) {
      if ((m.values.count || 0) > 0 || m.values.count === undefined) transactions[tags[TAGS.transaction]] = pickStats(m.values);
    } else if (metric === METRICS.httpDuration && tagNames.length === 1 && tags[TAGS.name]) {
      if ((m.values.count || 0) > 0 || m.values.count === undefined) apis[tags[TAGS.name]] = pickStats(m.values);
    }
  }
  if (Object.keys(transactions).length === 0) throw new BaselineError(`summary: no ${txKey('…')} sub-metric with samples; fix: use a run that completed transactions`);
  return {
    format: BASELINE_FORMAT,
    workflow: meta.workflow,
    release: meta.release,
    testid: meta.testid,
    created: meta.created || new Date().toISOString(),
    source: meta.source || 'k6 handleSummary',
    transactions,
    apis,
  };
}

/**
 * Throws a one-line BaselineError unless `b` is a baseline of `workflow`.
 */
export function validateBaseline(b, workflow, file = 'baseline') {
  const bad = (problem, fix) => {
    throw new BaselineError(`${file}: ${problem}; fix: ${fix}`);
  };
  if (b === null || typeof b !== 'object' || Array.isArray(b)) bad('is not a JSON object', 'record one with `folio-perf baseline`');
  if (!BASELINE_FORMATS.includes(b.format)) bad(`format is ${JSON.stringify(b.format)}, expected one of "${BASELINE_FORMATS.join('", "')}"`, 'record the baseline again with `folio-perf baseline`');
  if (b.workflow !== workflow) bad(`is a baseline of workflow "${b.workflow}", this script runs "${workflow}"`, `use a baseline recorded by a ${workflow} run`);
  if (b.transactions === null || typeof b.transactions !== 'object' || Object.keys(b.transactions).length === 0) bad('has no transactions', 'record it from a run that completed transactions');
  for (const [t, stats] of Object.entries(b.transactions)) {
    if (stats === null || typeof stats !== 'object') bad(`transaction ${t} is not an object of stats`, 'record the baseline again');
    for (const [s, v] of Object.entries(stats)) if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) bad(`transactions.${t}.${s} is not a number of ms`, 'record the baseline again');
  }
  if (b.apis !== undefined && (b.apis === null || typeof b.apis !== 'object')) bad('"apis" is not an object', 'record the baseline again');
  return b;
}
