// One summary.json for a run split over several k6 processes (make run RUNNERS=N): the runners'
// own summaries (results/<testid>/runners/<i>/summary.json) merged into
// results/<testid>/summary.json, which the report, `baseline` and `compare` read as for one process.
// folio-perf run calls mergeSummaries once its runners have ended (tools/run/run.mjs).
//
// What can be added up is added up (counters, rates' passes and fails, checks). A Trend's
// percentiles cannot: they are read again over the union of every runner's samples in InfluxDB, in
// k6's own definition (tools/verdict/slo.mjs trendValues), so the report's tables are those one k6
// with all the samples would have written. The tables are then built by the workflow's own
// summary code (tools/report/workflows/<name>.mjs `summarize`) from the merged data, and each threshold's
// outcome is judged again on the merged values (the gate itself is `folio-perf verdict`).
import { readFileSync, writeFileSync, renameSync, existsSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { influxClient } from '../report/influx.mjs';
import { ReportError } from '../report/errors.mjs';
import { parseKey, parseRule, holds, trendValues } from './slo.mjs';
import { tools } from '../workflows.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Checks of several runs' root groups added up by group path and check name. */
export function mergeGroups(groups) {
  const present = groups.filter(Boolean);
  if (present.length === 0) return undefined;
  const out = { ...present[0], checks: [], groups: [] };
  const checks = new Map();
  const subs = new Map();
  for (const g of present) {
    for (const c of g.checks || []) {
      const m = checks.get(c.name) || { ...c, passes: 0, fails: 0 };
      m.passes += c.passes || 0;
      m.fails += c.fails || 0;
      checks.set(c.name, m);
    }
    for (const sg of g.groups || []) {
      if (!subs.has(sg.name)) subs.set(sg.name, []);
      subs.get(sg.name).push(sg);
    }
  }
  out.checks = [...checks.values()];
  out.groups = [...subs.values()].map(mergeGroups);
  return out;
}

// k6's gauges of a runner's share of the load, which add up over the runners.
const ADDITIVE_GAUGES = new Set(['vus', 'vus_max']);

/**
 * The merged metric of one key from the runners' metrics (handleSummary's shape: {type, contains,
 * values, thresholds}). trend(key, stats) gives a Trend's values over the union of samples.
 */
export async function mergeMetric(key, ms, durationS, trend) {
  const first = ms[0];
  const values = {};
  if (first.type === 'counter') {
    values.count = ms.reduce((a, m) => a + (m.values.count || 0), 0);
    values.rate = durationS > 0 ? values.count / durationS : 0;
  } else if (first.type === 'rate') {
    values.passes = ms.reduce((a, m) => a + (m.values.passes || 0), 0);
    values.fails = ms.reduce((a, m) => a + (m.values.fails || 0), 0);
    const n = values.passes + values.fails;
    values.rate = n ? values.passes / n : 0;
  } else if (first.type === 'gauge' && ADDITIVE_GAUGES.has(key)) {
    // Each runner counts only its own VUs: the run's are their sum (each runner's min, max and
    // last are near-simultaneous, as all runners follow one plan).
    for (const s of ['min', 'max', 'value']) values[s] = ms.reduce((a, m) => a + (m.values[s] || 0), 0);
  } else if (first.type === 'gauge') {
    values.min = Math.min(...ms.map((m) => m.values.min));
    values.max = Math.max(...ms.map((m) => m.values.max));
    values.value = ms[ms.length - 1].values.value;
  } else if (first.type === 'trend') {
    Object.assign(values, await trend(key, Object.keys(first.values)));
  }
  const out = { ...first, values };
  const exprs = new Set(ms.flatMap((m) => Object.keys(m.thresholds || {})));
  if (exprs.size) {
    out.thresholds = {};
    for (const e of exprs) {
      const r = parseRule(e.replace(/\s/g, ''));
      const c = /^count(<=|>=|<|>|===|==|!=)(-?\d+(?:\.\d+)?)$/.exec(e.replace(/\s/g, ''));
      let ok = true;
      if (r) ok = holds((r.stat === 'rate' ? values.rate : values[r.stat]) ?? 0, r.op, r.limit);
      else if (c) ok = holds(values.count ?? 0, c[1], Number(c[2]));
      out.thresholds[e] = { ok };
    }
  }
  return out;
}

/** The merged k6 data (handleSummary's shape, without setup_data) of the runners' summaries. */
export async function mergeData(summaries, trend) {
  const durations = summaries.map((s) => (s.k6.state && s.k6.state.testRunDurationMs) || 0);
  const durationS = Math.max(...durations) / 1000;
  const keys = new Map();
  for (const s of summaries) {
    for (const [k, m] of Object.entries(s.k6.metrics || {})) {
      if (!keys.has(k)) keys.set(k, []);
      keys.get(k).push(m);
    }
  }
  const metrics = {};
  for (const [k, ms] of keys) metrics[k] = await mergeMetric(k, ms, durationS, trend);
  return {
    ...summaries[0].k6,
    state: { ...(summaries[0].k6.state || {}), testRunDurationMs: Math.max(...durations) },
    metrics,
    root_group: mergeGroups(summaries.map((s) => s.k6.root_group)),
  };
}

// The runners' summaries: runners/1 … runners/N (with N given, only those: a testid reused with
// fewer runners leaves the earlier run's higher-numbered directories behind).
export function runnerSummaries(resultsDir, runners = null) {
  const dir = join(resultsDir, 'runners');
  if (!existsSync(dir)) throw new ReportError(`${dir} does not exist: the run was not split over runners; fix: make run RUNNERS=N`);
  const out = [];
  const names = runners ? Array.from({ length: runners }, (_, i) => String(i + 1)) : readdirSync(dir).sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  for (const d of names) {
    const f = join(dir, d, 'summary.json');
    if (!existsSync(f)) continue;
    let summary;
    try {
      summary = JSON.parse(readFileSync(f, 'utf8'));
    } catch (e) {
      throw new ReportError(`${f} is not JSON (${e.message}): that runner was stopped while writing it; fix: read ${join(dir, d)}/k6.log, then run again`);
    }
    out.push({ instance: d, summary });
  }
  return out;
}

/** The merged run's summary.json, built by its workflow's own code from the merged k6 data. */
export async function summaryOf(data, meta) {
  return (await tools(meta.workflow)).summarize(data, meta);
}

export async function mergeSummaries(testid, { influxUrl, resultsDir = join(ROOT, 'results', testid), runners = null }) {
  const found = runnerSummaries(resultsDir, runners);
  if (found.length === 0) throw new ReportError(`no runner of ${testid} wrote a summary (${resultsDir}/runners/*/summary.json); fix: read the runners' k6.log files`);
  const summaries = found.map((f) => f.summary);
  const influx = influxClient(influxUrl);
  const trend = async (key, stats) => {
    const { metric, tags } = parseKey(key);
    return trendValues(influx, testid, metric, tags, stats);
  };
  const data = await mergeData(summaries, trend);
  const meta0 = summaries[0].meta;
  const { instance, ...rest } = meta0;
  const meta = {
    ...rest,
    runners: runners || found.length,
    runnersWithSummary: found.map((f) => f.instance),
    startedAt: summaries.map((s) => s.meta.startedAt).filter(Boolean).sort()[0] || null,
    finishedAt: summaries.map((s) => s.meta.finishedAt).filter(Boolean).sort().pop() || null,
    summaryPath: `results/${testid}/summary.json`,
    webReport: null,
  };
  const doc = await summaryOf(data, meta);
  const path = join(resultsDir, 'summary.json');
  writeFileSync(`${path}.tmp`, JSON.stringify(doc, null, 2));
  renameSync(`${path}.tmp`, path);
  return { path, runners: found.length, doc };
}
