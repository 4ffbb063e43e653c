// thresholds.json's fixed budgets (SLOs) judged over every sample of a test id in InfluxDB: all
// runners of a run split over several k6 processes together, as one k6 would have judged one
// process's samples. The rules are the very ones k6 gets (lib/thresholds.js buildThresholds, without
// a baseline and without the report's no-op sub-metrics), so the verdict cannot drift from the
// gate of a single-process run.
//
// Percentiles. A percentile of the union is not the mean (or any function) of the runners' own
// percentiles: each runner's p95 is the 95th of its own samples, and runners differ (the one whose
// VUs hit the slow patrons is slower), so only the union's order statistics say what 95 % of all
// transactions stayed under. They are read from InfluxDB, exactly, in k6's definition:
//   k6 (go.k6.io/k6 metrics/sink.go, TrendSink.P): sorted values v[0..n-1], i = p x (n - 1),
//     the result interpolates linearly between v[floor(i)] and v[ceil(i)];
//   InfluxDB 1.x percentile(value, P) is nearest rank: v[floor(n x P / 100 + 0.5) - 1], always one
//     of the samples, so it can differ from k6's by up to the gap between two neighbouring samples.
// percentile() with P = (j + 1) x 100 / n returns exactly v[j] (n x P / 100 + 0.5 = j + 1.5: half a
// rank away from either neighbour, so float rounding cannot move it), which gives the two samples
// k6 interpolates between without fetching every sample. `med` is p(50); avg, min, max are mean(),
// min(), max(). A Rate (transaction_failed, http_req_failed, checks) stores 1 or 0 per sample, so
// its rate is mean().
import { readFileSync } from 'node:fs';
import { ReportError } from '../report/errors.mjs';
import { influxClient } from '../report/influx.mjs';
import { buildThresholds, parseJsonFile, ThresholdsError } from '../../lib/thresholds.js';
import { METRICS, TAGS } from '../../lib/metrics.js';
import { known } from '../workflows.mjs';

const q = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const ident = (s) => `"${String(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** 'http_req_duration{name:GET /x/{id},vus:5}' -> { metric, tags: {name, vus} } (k6's sub-metric syntax). */
export function parseKey(key) {
  const at = key.indexOf('{');
  if (at < 0) return { metric: key, tags: {} };
  if (!key.endsWith('}')) throw new Error(`threshold key "${key}" has no closing brace`);
  const tags = {};
  for (const part of key.slice(at + 1, -1).split(',')) {
    const c = part.indexOf(':');
    if (c < 1) throw new Error(`threshold key "${key}" has a filter without tag:value`);
    tags[part.slice(0, c).trim()] = part.slice(c + 1).trim();
  }
  return { metric: key.slice(0, at), tags };
}

const RULE = /^\s*(avg|min|max|med|rate|p\((\d+(?:\.\d+)?)\))\s*(<=|>=|<|>|===|==|!=)\s*(-?\d+(?:\.\d+)?)\s*$/;

/** 'p(95)<2000' -> { stat: 'p(95)', pct: 95, op: '<', limit: 2000 }; null for what this check does not judge. */
export function parseRule(rule) {
  const m = RULE.exec(rule);
  if (!m) return null;
  return { stat: m[1], pct: m[2] === undefined ? (m[1] === 'med' ? 50 : null) : Number(m[2]), op: m[3], limit: Number(m[4]) };
}

export function holds(value, op, limit) {
  switch (op) {
    case '<': return value < limit;
    case '<=': return value <= limit;
    case '>': return value > limit;
    case '>=': return value >= limit;
    case '!=': return value !== limit;
    default: return value === limit;
  }
}

/** k6's percentile over n sorted samples: the two ranks it reads and the weight of the upper one. */
export function k6Ranks(pct, n) {
  const i = (pct / 100) * (n - 1);
  return { lo: Math.floor(i), hi: Math.ceil(i), f: i - Math.floor(i) };
}

/** The P that makes InfluxDB's nearest-rank percentile() return the sample of 0-based rank j of n. */
export function influxPercentileForRank(j, n) {
  return ((j + 1) * 100) / n;
}

/** k6's percentile from InfluxDB: count, then the one or two order statistics it interpolates. */
export async function k6Percentile(influx, from, where, pct) {
  const [c] = await influx.query(`SELECT count("value") AS "n" FROM ${from} WHERE ${where}`, 'count');
  const n = c && c.values && c.values[0] ? c.values[0][1] : 0;
  if (!n) return { value: null, n: 0 };
  const { lo, hi, f } = k6Ranks(pct, n);
  const ranks = lo === hi ? [lo] : [lo, hi];
  const cols = ranks.map((j, k) => `percentile("value", ${influxPercentileForRank(j, n)}) AS "r${k}"`).join(', ');
  const [s] = await influx.query(`SELECT ${cols} FROM ${from} WHERE ${where}`, 'ranks');
  const v = ranks.map((_, k) => s.values[0][k + 1]);
  return { value: v.length === 1 ? v[0] : v[0] + (v[1] - v[0]) * f, n };
}

/** The WHERE clause of a (sub-)metric's samples of one test id, every runner's. */
export function samplesOf(testid, tags) {
  return [`"testid" = ${q(testid)}`, ...Object.entries(tags).map(([k, v]) => `${ident(k)} = ${q(v)}`)].join(' AND ');
}

/**
 * k6's Trend values (avg, min, med, max, p(N), count: the keys of a handleSummary metric's values)
 * over every sample of a (sub-)metric in InfluxDB, as one k6 with all the samples would give them.
 */
export async function trendValues(influx, testid, metric, tags, stats) {
  const where = samplesOf(testid, tags);
  const from = ident(metric);
  const [s] = await influx.query(`SELECT mean("value"), min("value"), max("value"), count("value") FROM ${from} WHERE ${where}`, 'trend');
  const row = s && s.values && s.values[0];
  const out = {};
  const n = row ? row[4] : 0;
  for (const stat of stats) {
    const pm = /^p\((\d+(?:\.\d+)?)\)$/.exec(stat);
    // An empty sink gives 0 for every stat, as k6's.
    if (!n) out[stat] = 0;
    else if (stat === 'avg') out[stat] = row[1];
    else if (stat === 'min') out[stat] = row[2];
    else if (stat === 'max') out[stat] = row[3];
    else if (stat === 'count') out[stat] = n;
    else if (stat === 'med' || pm) out[stat] = (await k6Percentile(influx, from, where, stat === 'med' ? 50 : Number(pm[1]))).value;
  }
  return out;
}

async function statValue(influx, metric, tags, testid, rule) {
  const where = samplesOf(testid, tags);
  const from = ident(metric);
  if (rule.pct !== null) return k6Percentile(influx, from, where, rule.pct);
  const fn = { avg: 'mean', rate: 'mean', min: 'min', max: 'max' }[rule.stat];
  const [s] = await influx.query(`SELECT ${fn}("value") AS "v", count("value") AS "n" FROM ${from} WHERE ${where}`, rule.stat);
  if (!s || !s.values || !s.values[0] || !s.values[0][2]) return { value: null, n: 0 };
  return { value: s.values[0][1], n: s.values[0][2] };
}

/** The workflow of the test id's samples, from their `workflow` tag. */
export async function workflowOf(influx, testid, instance = null) {
  const series = await influx.query(`SHOW TAG VALUES FROM "${METRICS.httpReqs}" WITH KEY = "${TAGS.workflow}" WHERE ${samplesOf(testid, instance === null ? {} : { instance })}`, 'workflow');
  const values = new Set();
  for (const s of series) for (const v of s.values || []) values.add(v[1]);
  if (values.size === 0) throw new ReportError(`InfluxDB at ${influx.url} has no samples of test id ${testid}${instance === null ? '' : ` from runner ${instance}`}; fix: check the test id (ls results/), --instance and --influx / FP_INFLUX_URL`);
  if (values.size > 1) throw new ReportError(`test id ${testid} has samples of several workflows (${[...values].join(', ')}); fix: give every run its own TESTID`);
  return [...values][0];
}

/**
 * SLO rows for testid. opts: { influxUrl, thresholdsFile }. One row per rule of the workflow's
 * section of the thresholds file; the row contract is in tools/verdict/index.mjs.
 */
export async function rows(testid, { influxUrl, thresholdsFile, instance = null }) {
  const influx = influxClient(influxUrl);
  // A workflow the registry does not know (samples of another checkout, a typo'd tag) is refused.
  const workflow = known(await workflowOf(influx, testid, instance));
  // instance: one runner's samples only, i.e. what that runner alone would have been judged on.
  const only = instance === null ? {} : { instance };
  let text;
  try {
    text = readFileSync(thresholdsFile, 'utf8');
  } catch (e) {
    throw new ReportError(`thresholds file ${thresholdsFile} cannot be read (${e.code || e.message}); fix: pass --thresholds <file> or restore thresholds.json`);
  }
  let thresholds;
  try {
    thresholds = buildThresholds({ doc: parseJsonFile(text, thresholdsFile), workflow, file: thresholdsFile });
  } catch (e) {
    if (e instanceof ThresholdsError) throw new ReportError(e.message);
    throw e;
  }
  const out = [];
  for (const [key, rules] of Object.entries(thresholds)) {
    const { metric, tags } = parseKey(key);
    for (const text of rules) {
      const rule = parseRule(text);
      if (!rule) continue;
      const { value, n } = await statValue(influx, metric, { ...tags, ...only }, testid, rule);
      const row = { check: 'slo', metric: key, stat: rule.stat, baseline: rule.limit, candidate: value, deltaPct: null, interval: null, verdict: 'ok', note: '' };
      // k6 judges a rule on a metric without samples on its empty sink, whose every stat is 0
      // (metrics/engine evaluateThresholds at the end of the run): so does the verdict.
      const v = value === null ? 0 : value;
      if (rule.limit !== 0) row.deltaPct = (v / rule.limit - 1) * 100;
      if (!holds(v, rule.op, rule.limit)) row.verdict = 'failed';
      row.note = value === null ? 'no samples: judged as 0, as k6 does' : `${rule.op} ${rule.limit}, n=${n}`;
      out.push(row);
    }
  }
  return out;
}
