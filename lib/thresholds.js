// Builds k6's options.thresholds from thresholds.json (absolute SLOs) and, when BASELINE names a
// baseline file, from that run's percentiles x (1 + tolerance) + slack. Pure; lib/k6/run.js
// reads the files with open(). Any problem throws ThresholdsError in init, so k6 exits non-zero
// before the first request.

import { validateBaseline } from './baseline.js';
import { METRICS, TAGS, subMetric, txKey, apiKey } from './metrics.js';

export class ThresholdsError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ThresholdsError';
  }
}

const STAT = /^(avg|min|max|med|p\(\d+(\.\d+)?\))$/;

// Trend stats handleSummary must report: the release report's columns (avg, p50, p75, p95) plus
// what baselines and the text summary use. `count` feeds the report's throughput.
export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(50)', 'p(75)', 'p(90)', 'p(95)', 'p(99)', 'count'];

// A rule that always passes: k6 only computes a sub-metric (e.g. per `vus` tag) that has a threshold.
export const NOOP = 'max>=0';
export const NOOP_RATE = 'rate>=0';
export const NOOP_COUNT = 'count>=0';

function err(file, problem, fix) {
  throw new ThresholdsError(`${file}: ${problem}; fix: ${fix}`);
}

export function parseJsonFile(text, file) {
  try {
    return JSON.parse(text);
  } catch (e) {
    return err(file, `is not valid JSON (${e.message})`, `correct the JSON syntax in ${file}`);
  }
}

function isObj(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function statRules(entry, where, file) {
  if (!isObj(entry)) err(file, `${where} must be an object like {"p(95)": 2000, "why": "..."}`, 'see docs/thresholds.md');
  const rules = [];
  for (const [k, v] of Object.entries(entry)) {
    if (k === 'why' || k.startsWith('$')) continue;
    if (!STAT.test(k)) err(file, `${where} has unknown stat "${k}"`, 'use avg, min, max, med or p(N)');
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) err(file, `${where}.${k} must be a positive number of milliseconds, got ${JSON.stringify(v)}`, 'e.g. "p(95)": 2000');
    rules.push(`${k}<${v}`);
  }
  if (rules.length === 0) err(file, `${where} sets no limit`, 'add e.g. "p(95)": 2000 or remove the entry');
  return rules;
}

function regressionSection(sec, where, file) {
  if (sec === undefined) return null;
  if (!isObj(sec)) err(file, `${where} must be an object`, 'see docs/thresholds.md');
  const stats = sec.stats === undefined ? ['p(95)'] : sec.stats;
  if (!Array.isArray(stats) || stats.length === 0 || !stats.every((s) => typeof s === 'string' && STAT.test(s))) {
    err(file, `${where}.stats must be a list of avg, min, max, med or p(N)`, 'e.g. "stats": ["p(95)"]');
  }
  const tol = sec.tolerance;
  if (typeof tol !== 'number' || !Number.isFinite(tol) || tol < 0) err(file, `${where}.tolerance must be a fraction >= 0, got ${JSON.stringify(tol)}`, 'e.g. "tolerance": 0.2 for +20 %');
  const slack = sec.slackMs === undefined ? 0 : sec.slackMs;
  if (typeof slack !== 'number' || !Number.isFinite(slack) || slack < 0) err(file, `${where}.slackMs must be a number >= 0`, 'e.g. "slackMs": 25');
  const names = sec.names;
  if (names !== undefined && (!Array.isArray(names) || !names.every((n) => typeof n === 'string' && /^[A-Z]+ \//.test(n)))) {
    err(file, `${where}.names must be API names like "GET /users"`, 'use the `name` tag values (method + templated path)');
  }
  return { stats, tolerance: tol, slackMs: slack, names: names || null };
}

/**
 * Validates one workflow's section of thresholds.json and returns it normalised.
 */
export function workflowSpec(doc, workflow, file = 'thresholds.json') {
  if (!isObj(doc) || !isObj(doc.workflows)) err(file, 'has no "workflows" object', 'start from the thresholds.json in the repository');
  const wf = doc.workflows[workflow];
  if (!isObj(wf)) err(file, `has no workflow "${workflow}"`, `add "workflows": {"${workflow}": {...}}`);
  const transactions = {};
  for (const [t, e] of Object.entries(wf.transactions || {})) transactions[t] = statRules(e, `workflows.${workflow}.transactions.${t}`, file);
  const apis = {};
  for (const [n, e] of Object.entries(wf.apis || {})) {
    if (!/^[A-Z]+ \/\S*$/.test(n) || /[?,]/.test(n)) err(file, `workflows.${workflow}.apis has "${n}", which is not an API name`, 'use method + templated path, e.g. "GET /automated-patron-blocks/{id}"');
    apis[n] = statRules(e, `workflows.${workflow}.apis.${n}`, file);
  }
  // Request-time budgets per `kind` tag (search: regular, wildcard, wildcard-prefix).
  const kinds = {};
  for (const [k, e] of Object.entries(wf.kinds || {})) {
    if (!/^[a-z][a-z-]*$/.test(k)) err(file, `workflows.${workflow}.kinds has "${k}", which is not a kind`, 'use a `kind` tag value, e.g. "wildcard-prefix"');
    kinds[k] = statRules(e, `workflows.${workflow}.kinds.${k}`, file);
  }
  const rates = {};
  for (const [metric, e] of Object.entries(wf.rates || {})) {
    const where = `workflows.${workflow}.rates.${metric}`;
    if (!isObj(e)) err(file, `${where} must be an object like {"max": 0.01}`, 'see docs/thresholds.md');
    const r = [];
    for (const [k, v] of Object.entries(e)) {
      if (k === 'why' || k.startsWith('$')) continue;
      if (k !== 'max' && k !== 'min') err(file, `${where} has unknown key "${k}"`, 'use "max" or "min"');
      if (typeof v !== 'number' || v < 0 || v > 1) err(file, `${where}.${k} must be a fraction between 0 and 1, got ${JSON.stringify(v)}`, 'e.g. "max": 0.01');
      r.push(k === 'max' ? `rate<=${v}` : `rate>=${v}`);
    }
    if (r.length === 0) err(file, `${where} sets no limit`, 'add "max" or "min"');
    rates[metric] = r;
  }
  const reg = wf.regression === undefined ? {} : wf.regression;
  if (!isObj(reg)) err(file, `workflows.${workflow}.regression must be an object`, 'see docs/thresholds.md');
  return {
    transactions,
    apis,
    kinds,
    rates,
    regression: {
      transactions: regressionSection(reg.transactions, `workflows.${workflow}.regression.transactions`, file),
      apis: regressionSection(reg.apis, `workflows.${workflow}.regression.apis`, file),
    },
  };
}

/**
 * The number one SLO entry sets, validated as k6 gets it: sloLimit(doc, 'cico', 'transactions',
 * 'check-out') is check-out's p(95) budget in ms. `section` is transactions, apis or kinds; null when
 * the entry does not set `stat`. For readers that draw the budget (the dashboards' SLO lines).
 */
export function sloLimit(doc, workflow, section, key, stat = 'p(95)', file = 'thresholds.json') {
  const spec = workflowSpec(doc, workflow, file);
  if (!spec[section]?.[key]) return null;
  const v = doc.workflows[workflow][section][key][stat];
  return typeof v === 'number' ? v : null;
}

function add(out, key, rule) {
  (out[key] = out[key] || []).push(rule);
}

function round(ms) {
  return Math.round(ms * 1000) / 1000;
}

/**
 * options.thresholds for one run.
 * @param {object} p
 * @param {object} p.doc parsed thresholds.json
 * @param {string} p.workflow e.g. "cico"
 * @param {object|null} p.baseline parsed baseline file (or null)
 * @param {string} [p.baselineFile] its path, for messages
 * @param {number[]} [p.vus] user counts of the profile: per-`vus` sub-metrics for the report table
 * @param {string[]} [p.transactions] transaction names the script records
 * @param {string[]} [p.apiNames] API `name` tags the script sends: per-API sub-metrics for the
 *   slow-API table and for baselines
 * @param {Array<[string, string]>} [p.extra] more sub-metrics the report reads, [key, no-op rule]
 */
export function buildThresholds({ doc, workflow, baseline = null, baselineFile = 'baseline', vus = [], transactions = [], apiNames = [], extra = [], file = 'thresholds.json' }) {
  const spec = workflowSpec(doc, workflow, file);
  const out = {};

  for (const [t, rules] of Object.entries(spec.transactions)) for (const r of rules) add(out, txKey(t), r);
  for (const [n, rules] of Object.entries(spec.apis)) for (const r of rules) add(out, apiKey(n), r);
  for (const [k, rules] of Object.entries(spec.kinds)) for (const r of rules) add(out, subMetric(METRICS.httpDuration, { [TAGS.kind]: k }), r);
  for (const [m, rules] of Object.entries(spec.rates)) for (const r of rules) add(out, m, r);

  if (baseline) {
    validateBaseline(baseline, workflow, baselineFile);
    const rt = spec.regression.transactions;
    if (rt) {
      for (const [t, stats] of Object.entries(baseline.transactions)) {
        for (const s of rt.stats) {
          if (typeof stats[s] !== 'number') throw new ThresholdsError(`${baselineFile}: transaction ${t} has no ${s}; fix: record the baseline again with folio-perf baseline`);
          add(out, txKey(t), `${s}<${round(stats[s] * (1 + rt.tolerance) + rt.slackMs)}`);
        }
      }
    }
    const ra = spec.regression.apis;
    if (ra) {
      for (const [n, stats] of Object.entries(baseline.apis || {})) {
        if (ra.names && !ra.names.includes(n)) continue;
        for (const s of ra.stats) if (typeof stats[s] === 'number') add(out, apiKey(n), `${s}<${round(stats[s] * (1 + ra.tolerance) + ra.slackMs)}`);
      }
    }
  }

  // Sub-metrics that only feed the summary (k6 computes a sub-metric only if it has a threshold).
  const keep = (key, rule = NOOP) => {
    if (!out[key]) out[key] = [rule];
  };
  for (const t of transactions) {
    keep(txKey(t));
    for (const v of vus) keep(subMetric(METRICS.transactionDuration, { [TAGS.transaction]: t, [TAGS.vus]: v }));
    keep(subMetric(METRICS.transactionFailed, { [TAGS.transaction]: t }), NOOP_RATE);
  }
  for (const n of apiNames) {
    keep(apiKey(n));
    for (const v of vus) keep(subMetric(METRICS.httpDuration, { [TAGS.name]: n, [TAGS.vus]: v }));
  }
  for (const [key, rule] of extra) keep(key, rule);
  return out;
}
