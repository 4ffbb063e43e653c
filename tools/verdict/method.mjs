// The baseline comparison's method: is a candidate run's p95 worse than the baseline's runs can
// explain? Pure; tools/verdict/baseline.mjs feeds it from baseline files and InfluxDB.
//
// Per metric (a transaction's or slow API's p95), on the log scale, where a regression of x % is the
// same distance at 40 ms and at 1 s:
//   y_i   log p95 of baseline run i (k >= 2 runs), se_i its within-run sampling error (order
//         statistics of the run's samples, tools/verdict/stats.mjs);
//   y_c   log p95 of the candidate, se_c likewise;
//   d     = y_c - mean(y_i): the estimated change, Δ % = (e^d - 1) · 100.
// A run's log p95 varies from run to run by more than its sampling error: the machine, the caches,
// what else runs. That extra between-run variance τ² is estimated from the baseline's runs as
// max(0, s² - mean(se_i²)) (s² the runs' sample variance) and pooled over the baseline's metrics
// (they share the machine and the run), so it has m·(k-1) degrees of freedom rather than k-1: two
// runs give one degree per metric, and a t quantile with one degree is 12.7 at 95 %. (The caller,
// tools/verdict/baseline.mjs, passes a metric its own spread instead when that is larger.)
//   Var(d) = se_c² + τ² + (τ² + mean(se_i²)) / k
// (the candidate's own sampling and run-to-run error, plus the error of the baseline's mean), with
// the degrees of freedom of its estimated part by Welch-Satterthwaite. The interval is
// d ± t(1 - α, df) · sqrt(Var(d)) with α the false-alarm rate per metric (one-sided): **regressed**
// when the whole interval is above 0, **improved** when it is below, else **ok**. **inconclusive**
// when data is missing: fewer than 2 usable baseline runs, or fewer than minSamples samples in the
// candidate or a baseline run. The caller splits the gate's false-alarm rate over the metrics it
// judges (Bonferroni), so a whole verdict falsely fails at most that often.
//
// A change is also required to matter: with minDeltaMs (absolute rows, in ms), a regression or an
// improvement smaller than that is **ok** whatever its interval. Two short baseline runs that happen
// to agree estimate the between-run spread too small, and on minifolio's 1–3 ms GETs a move of a few
// tenths of a millisecond then looked significant (a run of the baseline's own code was called
// regressed at α 0.001 for +0.36 ms on a 1.2 ms p95); the release reports round to 10 ms.
import { mean, variance, tQuantile } from './stats.mjs';

export const DEFAULTS = { alpha: 0.05, minSamples: 100, minRuns: 2, minDeltaMs: 2 };

const usable = (r, minSamples) => r && r.n >= minSamples && Number.isFinite(r.logQ) && Number.isFinite(r.se);

/**
 * The between-run variance of log p95 pooled over metrics: { tau2, df, metrics } from
 * { key: [{n, logQ, se}, ...] } (each metric's baseline runs). Metrics with fewer than 2 usable
 * runs add nothing. df = sum of (k_j - 1).
 */
export function pooledSpread(runsByMetric, { minSamples = DEFAULTS.minSamples } = {}) {
  let num = 0;
  let df = 0;
  let metrics = 0;
  for (const runs of Object.values(runsByMetric)) {
    const ok = runs.filter((r) => usable(r, minSamples));
    if (ok.length < 2) continue;
    const excess = Math.max(0, variance(ok.map((r) => r.logQ)) - mean(ok.map((r) => r.se ** 2)));
    num += (ok.length - 1) * excess;
    df += ok.length - 1;
    metrics += 1;
  }
  return { tau2: df > 0 ? num / df : null, df, metrics };
}

const pct = (logRatio) => (Math.exp(logRatio) - 1) * 100;

/**
 * What judge() and predict() both start from: the usable baseline runs, the baseline (geometric mean
 * of their quantiles), the candidate's quantile, a row maker for early answers, and the note when
 * the baseline has too few usable runs (null when it has enough).
 */
function sides(runs, candidate, minSamples, minRuns) {
  const ok = (runs || []).filter((r) => usable(r, minSamples));
  const base = ok.length > 0 ? Math.exp(mean(ok.map((r) => r.logQ))) : null;
  const cand = candidate && candidate.n > 0 ? candidate.q : null;
  const out = (verdict, note, extra = {}) => ({ verdict, baseline: base, candidate: cand, deltaPct: null, interval: null, note, df: null, ...extra });
  const short = (runs || []).length - ok.length;
  const tooFewRuns = ok.length < minRuns ? `baseline has ${ok.length} usable run${ok.length === 1 ? '' : 's'}, needs ${minRuns}${short ? ` (${short} with under ${minSamples} samples)` : ''}: record it from ${minRuns} or more runs` : null;
  return { ok, base, cand, out, tooFewRuns };
}

/**
 * One metric's verdict. runs: the baseline's runs [{n, q, logQ, se}]; candidate {n, q, logQ, se}
 * (or null when the candidate has no samples); spread: pooledSpread(...); alpha: this metric's
 * one-sided false-alarm rate.
 * Returns { verdict, baseline, candidate, deltaPct, interval, note, df }.
 */
export function judge({ runs, candidate, spread, alpha = DEFAULTS.alpha, minSamples = DEFAULTS.minSamples, minRuns = DEFAULTS.minRuns, minDeltaMs = 0 }) {
  const { ok, base, cand, out, tooFewRuns } = sides(runs, candidate, minSamples, minRuns);
  if (!candidate || candidate.n === 0) return out('inconclusive', 'no samples in this run');
  if (tooFewRuns) return out('inconclusive', tooFewRuns);
  const deltaOnly = { deltaPct: pct(candidate.logQ - Math.log(base)) };
  if (!usable(candidate, minSamples)) return out('inconclusive', `${candidate.n} samples, needs ${minSamples}: run longer`, deltaOnly);
  if (!spread || spread.tau2 === null || !(spread.df > 0)) return out('inconclusive', 'no between-run spread in the baseline', deltaOnly);

  const k = ok.length;
  const within = mean(ok.map((r) => r.se ** 2));
  const tau2 = spread.tau2;
  const estimated = tau2 * (1 + 1 / k); // the part with spread.df degrees of freedom
  const v = candidate.se ** 2 + estimated + within / k;
  const df = estimated > 0 ? (v * v) / ((estimated * estimated) / spread.df) : Infinity;
  const d = candidate.logQ - mean(ok.map((r) => r.logQ));
  const half = tQuantile(1 - alpha, df) * Math.sqrt(v);
  const lo = d - half;
  const hi = d + half;
  let verdict = lo > 0 ? 'regressed' : hi < 0 ? 'improved' : 'ok';
  let note = '';
  if (verdict !== 'ok' && Math.abs(cand - base) < minDeltaMs) {
    verdict = 'ok';
    note = `|Δ| under ${minDeltaMs} ms`;
  }
  return { verdict, baseline: base, candidate: cand, deltaPct: pct(d), interval: [pct(lo), pct(hi)], note, df };
}

/**
 * A prediction interval for one new run: is the candidate's value (e.g. a whole run's speed, whose
 * sampling error is tiny) outside what the baseline's k runs make likely for a run of the same
 * system? d = y_c − mean(y_i), Var(d) = s²·(1 + 1/k) with s² the runs' sample variance (their
 * sampling error included, nothing subtracted) and k − 1 degrees of freedom. Unlike judge() it
 * borrows no calm from other metrics and never takes two runs that happened to agree for proof of
 * a small spread: with k = 2 its one degree of freedom makes the interval very wide, as it should.
 */
export function predict({ runs, candidate, alpha = DEFAULTS.alpha, minRuns = DEFAULTS.minRuns, minSamples = DEFAULTS.minSamples }) {
  const { ok, base, cand, out, tooFewRuns } = sides(runs, candidate, minSamples, minRuns);
  if (!usable(candidate, minSamples)) return out('inconclusive', 'too few samples in this run');
  if (tooFewRuns) return out('inconclusive', tooFewRuns);
  const k = ok.length;
  const d = candidate.logQ - mean(ok.map((r) => r.logQ));
  const s2 = variance(ok.map((r) => r.logQ));
  if (!(s2 > 0)) return out('inconclusive', 'the baseline runs are identical: no between-run spread', { deltaPct: pct(d) });
  const half = tQuantile(1 - alpha, k - 1) * Math.sqrt(s2 * (1 + 1 / k));
  const verdict = d - half > 0 ? 'regressed' : d + half < 0 ? 'improved' : 'ok';
  return { verdict, baseline: base, candidate: cand, deltaPct: pct(d), interval: [pct(d - half), pct(d + half)], note: '', df: k - 1 };
}
