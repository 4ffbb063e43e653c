// The verdict's baseline check: the run's p95 and p50 per transaction and slow API, from every
// sample of the testid in InfluxDB, against format-2 baselines (tools/verdict/baseline-format.mjs),
// by the method of tools/verdict/method.mjs. The gate's false-alarm rate (alpha, default 5 %) is
// split evenly over the rows judged, so a run of the baseline's own system fails the gate at most
// that often.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { influxClient } from '../report/influx.mjs';
import { ReportError } from '../report/errors.mjs';
import { METRICS, TAGS, txKey, apiKey } from '../../lib/metrics.js';
import { readRunSamples, validateBaseline2, mergeBaselines, STAT } from './baseline-format.mjs';
import { runQuantileStats, variance } from './stats.mjs';
import { judge, predict, pooledSpread, DEFAULTS } from './method.mjs';

export function readBaseline(file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ReportError(`baseline ${file} cannot be read; fix: give a file written by \`folio-perf baseline <testid> <testid> ...\``);
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ReportError(`${file} is not JSON (${e.message}); fix: record it again with \`folio-perf baseline <testid> <testid> ...\``);
  }
  return validateBaseline2(doc, file);
}

// The candidate's own description: its summary.json when this machine ran it, else InfluxDB's tags.
async function candidateMeta(client, testid, resultsDir) {
  const path = join(resultsDir, testid, 'summary.json');
  if (existsSync(path)) {
    let m;
    try {
      m = JSON.parse(readFileSync(path, 'utf8')).meta;
    } catch (e) {
      throw new ReportError(`${path} is not JSON (${e.message}): its run stopped while writing it; fix: run ${testid} again, or remove ${path} to judge it by its samples alone`);
    }
    if (m && m.workflow) return m;
  }
  const series = await client.query(`SHOW TAG VALUES FROM "${METRICS.transactionDuration}" WITH KEY = "${TAGS.workflow}" WHERE "testid" = '${testid.replace(/'/g, "\\'")}'`, 'candidate workflow');
  const wf = series[0]?.values?.[0]?.[1];
  return wf ? { workflow: wf } : null;
}

/**
 * The baseline rows for testid. opts: { influxUrl, baselineFiles, alpha, minSamples, resultsDir, control }.
 * [] when no baseline file is given.
 */
export async function rows(testid, opts = {}) {
  const files = opts.baselineFiles || [];
  if (files.length === 0) return [];
  const alpha = opts.alpha ?? DEFAULTS.alpha;
  if (!(alpha > 0 && alpha < 0.5)) throw new ReportError(`alpha ${alpha} is not a false-alarm rate in (0, 0.5); fix: e.g. --alpha 0.05`);
  const minSamples = opts.minSamples ?? DEFAULTS.minSamples;
  const base = mergeBaselines(files.map(readBaseline), files);
  const client = influxClient(opts.influxUrl);
  const meta = await candidateMeta(client, testid, opts.resultsDir || 'results');
  if (!meta) throw new ReportError(`InfluxDB at ${client.url} has no transaction samples of ${testid}; fix: give the test id of a finished run and the InfluxDB it wrote to (--influx)`);
  if (meta.workflow !== base.workflow) throw new ReportError(`${testid} is a ${meta.workflow} run, the baseline ${files[0]} is of workflow ${base.workflow}; fix: give a baseline recorded from ${meta.workflow} runs`);
  if (meta.profile && base.profile && meta.profile !== base.profile) throw new ReportError(`${testid} ran PROFILE=${meta.profile}, the baseline PROFILE=${base.profile}; fix: run the candidate with PROFILE=${base.profile} or record a baseline of ${meta.profile} runs`);
  if (meta.think && base.think && meta.think !== base.think) throw new ReportError(`${testid} ran THINK=${meta.think}, the baseline THINK=${base.think}; fix: run the candidate with THINK=${base.think}`);

  const minDeltaMs = opts.minDeltaMs ?? DEFAULTS.minDeltaMs;
  return compareRun(base, await readRunSamples(client, testid), { alpha, minSamples, control: opts.control || null, minDeltaMs });
}

/** A metric's run figures relative to a control metric's in the same run: the log ratio, errors added. */
export function relativeTo(r, c) {
  if (!r || !c || !(r.n > 0) || !(c.n > 0)) return { n: 0, q: null, logQ: null, se: null };
  return { testid: r.testid, n: Math.min(r.n, c.n), q: r.q / c.q, logQ: r.logQ - c.logQ, se: Math.hypot(r.se, c.se) };
}

const shortName = (key) => /\{[^:]+:(.*)\}$/.exec(key)?.[1] ?? key;

/** The control that is no metric: the run's own speed, read from all its metrics (see speedOf). */
export const SPEED = 'speed';

/**
 * The rows of one candidate's samples (readRunSamples' shape) against a format-2 baseline document:
 * pure, so make bench-gate judges its stored runs exactly as the verdict does.
 * control (optional): what every other metric is judged relative to, in the same run, to cancel the
 * machine's speed from run to run (a shared or drifting machine moves every metric of a run
 * together). Either
 *   - a metric of the baseline that the candidate's change cannot touch (p95 ÷ the control's p95);
 *     it hides a change that slows the control too; or
 *   - SPEED ('speed'): the run's speed, the median over the other metrics of their change from the
 *     baseline's mean (leave-one-out, so a metric never cancels itself; the median, so a change
 *     that slows fewer than half of the other metrics does not move it). A change that slows a few metrics shows in their rows;
 *     one that slows everything alike moves the speed itself, which gets a row of its own ("run
 *     speed", the median change of all metrics), judged by a prediction interval from the baseline
 *     runs' own speeds (method.mjs predict: k - 1 degrees of freedom): honest, and weak with few runs.
 */
export function compareRun(base, samples, { alpha = DEFAULTS.alpha, minSamples = DEFAULTS.minSamples, control = null, minDeltaMs = DEFAULTS.minDeltaMs } = {}) {
  const speed = control === SPEED;
  if (control && !speed && !base.metrics[control]) throw new ReportError(`the control ${control} is neither "${SPEED}" nor a metric of the baseline; fix: ${SPEED} or one of ${Object.keys(base.metrics).join(', ')}`);
  const keys = Object.keys(base.metrics).filter((k) => k !== control);
  const byKey = new Map([...Object.entries(samples.transactions).map(([t, xs]) => [txKey(t), xs]), ...Object.entries(samples.apis).map(([n, xs]) => [apiKey(n), xs])]);
  const sampleOf = (key) => {
    const xs = byKey.get(key);
    return xs && xs.length > 0 ? xs : null;
  };
  // Both quantiles: p95 is what the release reports judge; p50 moves with a slowdown of the whole
  // distribution too and, from the same samples, has a third of p95's sampling error.
  const out = [];
  const plans = STATS.filter(([stat]) => stat === STAT || keys.every((k) => base.metrics[k].runs.every((r) => r[FIELD[stat]])));
  const perRowAlpha = alpha / ((keys.length + (speed ? 1 : 0)) * plans.length);
  for (const [stat, p] of plans) {
    const field = FIELD[stat];
    const baseRuns = (key) => base.metrics[key].runs.map((r) => (field ? { testid: r.testid, n: r.n, ...r[field] } : r));
    const candOf = (key) => {
      const xs = sampleOf(key);
      return xs ? runQuantileStats(xs, p) : null;
    };
    const cand = Object.fromEntries(keys.map((k) => [k, candOf(k)]));
    const sp = speed ? speedOf(Object.fromEntries(keys.map((k) => [k, baseRuns(k)])), cand, minSamples) : null;
    const controlRuns = control && !speed ? baseRuns(control) : null;
    const runsOf = (key) => {
      if (speed) return baseRuns(key).map((r) => relativeTo(r, sp.run(r.testid, key)));
      return control ? baseRuns(key).map((r) => relativeTo(r, controlRuns.find((c) => c.testid === r.testid))) : baseRuns(key);
    };
    const candControl = control && !speed ? candOf(control) : null;
    const rel = Object.fromEntries(keys.map((k) => [k, runsOf(k)]));
    const pooled = pooledSpread(rel, { minSamples });
    // In absolute quantiles most of the between-run spread is the machine's, shared by every metric
    // of a run: pooling it over m metrics does not give it m·(k-1) degrees of freedom.
    const spread = control ? pooled : withSharedShock(pooled, rel, minSamples);
    const label = speed ? `${stat} ÷ run speed` : control ? `${stat} ÷ ${shortName(control)} ${stat}` : stat;
    for (const key of keys) {
      const own = cand[key];
      let candidate = own;
      if (speed) candidate = own ? relativeTo(own, sp.candidate(key)) : null;
      else if (control) candidate = own && candControl ? relativeTo(own, candControl) : null;
      // A metric whose own runs disagree more than the pool's is judged by its own spread (and its
      // own degrees of freedom): pooling must not lend a noisy metric the calm of the others.
      const mine = pooledSpread({ [key]: rel[key] }, { minSamples });
      const v = judge({ runs: rel[key], candidate, spread: mine.tau2 !== null && spread.tau2 !== null && mine.tau2 > spread.tau2 ? mine : spread, alpha: perRowAlpha, minSamples, minDeltaMs: control && !speed ? 0 : minDeltaMs });
      out.push({ check: 'baseline', metric: key, stat: label, baseline: v.baseline, candidate: v.candidate, deltaPct: v.deltaPct, interval: v.interval, verdict: v.verdict, note: v.note });
    }
    if (speed) {
      // The whole system's change: the candidate's speed against the baseline runs' own speeds.
      const v = predict({ runs: sp.runSpeeds(), candidate: sp.candidateRun(), alpha: perRowAlpha, minSamples });
      out.push({ check: 'baseline', metric: 'run speed (median change of all metrics)', stat, baseline: v.baseline, candidate: v.candidate, deltaPct: v.deltaPct, interval: v.interval, verdict: v.verdict, note: v.note });
    }
  }
  return out;
}

/**
 * The pooled spread's degrees of freedom when part of it is a shift shared by every metric of a run
 * (the machine's speed): that part is estimated from the k runs' speeds (speedOf), k - 1 degrees of
 * freedom however many metrics share it (the speeds' variance less their sampling error, at most
 * tau2); the rest (each metric's own wander) keeps the pooled degrees. Welch-Satterthwaite over the
 * two: tau2 = shared + own, df = tau2² / (shared²/(k-1) + own²/df_pooled). Same tau2, fewer degrees of freedom when the machine's drift dominates. Without
 * this, seven fast runs on a drifting machine gave 6-19 % false alarms at alpha 0.05 (make bench-gate).
 */
export function withSharedShock(spread, runsByKey, minSamples = DEFAULTS.minSamples) {
  if (spread.tau2 === null || !(spread.tau2 > 0)) return spread;
  const speeds = speedOf(runsByKey, {}, minSamples).runSpeeds().filter((r) => r.logQ !== null);
  if (speeds.length < 2) return spread;
  // The speeds' spread less their own sampling error (as pooledSpread does for tau2), capped at tau2.
  const excess = variance(speeds.map((r) => r.logQ)) - speeds.reduce((a, r) => a + r.se * r.se, 0) / speeds.length;
  const shared = Math.min(spread.tau2, Math.max(0, excess));
  const own = spread.tau2 - shared;
  const df = (spread.tau2 * spread.tau2) / ((shared * shared) / (speeds.length - 1) + (own * own) / spread.df);
  return { ...spread, df: Math.min(spread.df, df), sharedTau2: shared };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

/**
 * A run's speed relative to the baseline: per run (each baseline run, and the candidate), the
 * median over metrics of (log quantile − the baseline runs' mean log quantile), leaving out the
 * metric it is a control for (key; null leaves none out). Its sampling error, that of a median of
 * m values with errors se: about 1.2533 · rms(se) / √m. Metrics without minSamples in a run do not
 * count for that run. runsByKey: { key: [{testid, n, logQ, se}] } (the baseline), cand: { key: {n,
 * logQ, se} | null }.
 */
export function speedOf(runsByKey, cand, minSamples = DEFAULTS.minSamples) {
  const ok = (r) => r && r.n >= minSamples && Number.isFinite(r.logQ) && Number.isFinite(r.se);
  const centre = {};
  for (const [key, runs] of Object.entries(runsByKey)) {
    const good = runs.filter(ok);
    // A metric with one usable baseline run would read 0 in it whatever the machine did.
    if (good.length >= DEFAULTS.minRuns) centre[key] = good.reduce((a, r) => a + r.logQ, 0) / good.length;
  }
  const at = (get, leaveOut) => {
    const devs = [];
    const ses = [];
    for (const key of Object.keys(centre)) {
      if (key === leaveOut) continue;
      const r = get(key);
      if (!ok(r)) continue;
      devs.push(r.logQ - centre[key]);
      ses.push(r.se);
    }
    if (devs.length === 0) return { n: 0, q: null, logQ: null, se: null };
    const logQ = median(devs);
    const se = (1.2533 * Math.sqrt(ses.reduce((a, x) => a + x * x, 0) / ses.length)) / Math.sqrt(devs.length);
    return { n: Number.MAX_SAFE_INTEGER, q: Math.exp(logQ), logQ, se };
  };
  const testids = [...new Set(Object.values(runsByKey).flatMap((runs) => runs.map((r) => r.testid)))];
  const runOf = (testid) => (key) => runsByKey[key].find((r) => r.testid === testid);
  // The speed as a run of a metric of its own (n: the fewest samples of any metric it counts).
  const whole = (get) => {
    const r = at(get, null);
    const ns = Object.keys(centre).map(get).filter(ok).map((x) => x.n);
    return r.logQ === null ? r : { ...r, n: Math.min(...ns) };
  };
  return {
    run: (testid, key) => at(runOf(testid), key),
    candidate: (key) => at((k) => cand[k], key),
    runSpeeds: () => testids.map((t) => ({ testid: t, ...whole(runOf(t)) })),
    candidateRun: () => whole((k) => cand[k]),
  };
}

// The quantiles judged, and where a format-2 run keeps each (p95 at the run's top level).
const STATS = [['p(95)', 0.95], ['p(50)', 0.5]];
const FIELD = { 'p(95)': null, 'p(50)': 'p50' };

