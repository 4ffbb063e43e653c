// The baseline comparison's method on synthetic runs with known shifts: the arithmetic against
// known values, the false-alarm rate held over many seeds, the power where the shift is large
// against the noise, and the inconclusive cases naming what is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quantileSorted, runQuantileStats, histogramOf, histogramQuantile, mergeHistograms, tQuantile, normalQuantile, tCdf, variance } from '../../tools/verdict/stats.mjs';
import { judge, predict, pooledSpread } from '../../tools/verdict/method.mjs';

// mulberry32 + Box-Muller: reproducible draws per seed.
function rng(seed) {
  let a = seed >>> 0;
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(u() || 1e-12)) * Math.cos(2 * Math.PI * u());
  return { u, normal };
}

// One run of a metric: n log-normal response times around medianMs, shifted by the run's own
// machine effect (log scale, sd tau) and by factor.
function runSamples(r, { n = 1000, medianMs = 40, sigma = 0.35, tau = 0.05, factor = 1 }) {
  const runEffect = tau * r.normal();
  return Array.from({ length: n }, () => medianMs * factor * Math.exp(runEffect + sigma * r.normal()));
}

const METRICS = { 'check-out': 40, 'check-in': 25, 'POST /circulation/check-out-by-barcode': 11 };

// A baseline of k runs and a candidate whose check-out is `factor` times slower; the verdict of
// check-out at the per-metric alpha.
function trial(seed, { k = 3, factor = 1, tau = 0.05, n = 1000, alpha = 0.05 }) {
  const r = rng(seed);
  const runsByMetric = {};
  for (const [m, med] of Object.entries(METRICS)) {
    runsByMetric[m] = Array.from({ length: k }, () => runQuantileStats(runSamples(r, { n, medianMs: med, tau })));
  }
  const spread = pooledSpread(runsByMetric);
  const candidate = runQuantileStats(runSamples(r, { n, medianMs: METRICS['check-out'], tau, factor }));
  return judge({ runs: runsByMetric['check-out'], candidate, spread, alpha });
}

const rate = (seeds, opts, verdict) => {
  let hits = 0;
  for (let s = 1; s <= seeds; s++) if (trial(s * 7919, opts).verdict === verdict) hits++;
  return hits / seeds;
};

test('quantiles and t quantiles against known values', () => {
  assert.equal(quantileSorted([1, 2, 3, 4, 5], 0.5), 3);
  assert.equal(quantileSorted([10, 20], 0.95), 19.5);
  assert.ok(Math.abs(normalQuantile(0.975) - 1.959964) < 1e-5);
  assert.ok(Math.abs(normalQuantile(0.05) + 1.644854) < 1e-5);
  for (const [p, df, want] of [[0.975, 1, 12.7062], [0.975, 10, 2.22814], [0.99, 7, 2.99795], [0.95, 2, 2.91999], [0.995, 30, 2.74999], [0.9, 3.5, 1.5758]]) {
    const got = tQuantile(p, df);
    assert.ok(Math.abs(got - want) < 2e-3 * want, `t(${p}, ${df}) = ${got}, want ${want}`);
    assert.ok(Math.abs(tCdf(got, df) - p) < 1e-9);
  }
  assert.ok(Math.abs(tQuantile(0.95, Infinity) - 1.644854) < 1e-5);
});

test('the order-statistic standard error of log p95 matches the spread over many runs', () => {
  const r = rng(42);
  const logs = [];
  const ses = [];
  for (let i = 0; i < 300; i++) {
    const s = runQuantileStats(runSamples(r, { n: 800, tau: 0 }));
    logs.push(s.logQ);
    ses.push(s.se);
  }
  const empirical = Math.sqrt(variance(logs));
  const predicted = Math.sqrt(ses.reduce((a, b) => a + b * b, 0) / ses.length);
  assert.ok(predicted / empirical > 0.8 && predicted / empirical < 1.25, `predicted se ${predicted.toFixed(4)}, empirical ${empirical.toFixed(4)}`);
});

test('the histogram keeps p95 within its bin width and merges runs', () => {
  const r = rng(7);
  const a = runSamples(r, { n: 2000 });
  const b = runSamples(r, { n: 2000, factor: 1.3 });
  const exact = (xs) => quantileSorted(Float64Array.from(xs).sort(), 0.95);
  for (const xs of [a, b]) assert.ok(Math.abs(histogramQuantile(histogramOf(xs), 0.95) / exact(xs) - 1) < 0.06);
  const merged = mergeHistograms([histogramOf(a), histogramOf(b)]);
  assert.equal(Object.values(merged.counts).reduce((s, c) => s + c, 0), 4000);
  assert.ok(Math.abs(histogramQuantile(merged, 0.95) / exact([...a, ...b]) - 1) < 0.06);
});

test('A/A: the false-alarm rate stays at alpha over 400 seeds (between-run spread 5 %, 3 baseline runs)', () => {
  const fa = rate(400, { factor: 1, alpha: 0.05 }, 'regressed');
  // binomial sd at 400 trials is 1.1 %: 5 % + 3 sd
  assert.ok(fa <= 0.085, `false-alarm rate ${fa}`);
  const improved = rate(400, { factor: 1, alpha: 0.05 }, 'improved');
  assert.ok(improved <= 0.085, `false "improved" rate ${improved}`);
});

test('A/A with only 2 baseline runs and a large between-run spread (15 %): still at most alpha', () => {
  const fa = rate(400, { k: 2, factor: 1, tau: 0.15, alpha: 0.05 }, 'regressed');
  assert.ok(fa <= 0.085, `false-alarm rate ${fa}`);
});

test('A/B: +50 % is detected nearly always, +25 % mostly, at alpha 0.01', () => {
  const p50 = rate(200, { factor: 1.5, alpha: 0.01 }, 'regressed');
  const p25 = rate(200, { factor: 1.25, alpha: 0.01 }, 'regressed');
  assert.ok(p50 >= 0.97, `power at +50 %: ${p50}`);
  assert.ok(p25 >= 0.7, `power at +25 %: ${p25}`);
  // and a faster candidate is called improved, never regressed
  assert.equal(rate(100, { factor: 0.6, alpha: 0.01 }, 'regressed'), 0);
  assert.ok(rate(100, { factor: 0.6, alpha: 0.01 }, 'improved') >= 0.95);
});

test('the estimated change and its interval cover the true shift', () => {
  let covered = 0;
  const seeds = 300;
  for (let s = 1; s <= seeds; s++) {
    const v = trial(s * 104729, { factor: 1.2, alpha: 0.05 });
    if (v.interval[0] <= 20 && v.interval[1] >= 20) covered++;
  }
  // a 90 % interval (alpha 0.05 each side)
  assert.ok(covered / seeds >= 0.85, `coverage ${covered / seeds}`);
});

test('inconclusive names what is missing', () => {
  const r = rng(3);
  const run = () => runQuantileStats(runSamples(r, {}));
  const two = [run(), run()];
  const spread = pooledSpread({ a: two });
  const one = judge({ runs: [two[0]], candidate: run(), spread });
  assert.equal(one.verdict, 'inconclusive');
  assert.match(one.note, /baseline has 1 usable run, needs 2: record it from 2 or more runs/);
  const few = judge({ runs: two, candidate: runQuantileStats(runSamples(r, { n: 40 })), spread });
  assert.equal(few.verdict, 'inconclusive');
  assert.match(few.note, /40 samples, needs 100: run longer/);
  assert.equal(typeof few.deltaPct, 'number');
  const none = judge({ runs: two, candidate: null, spread });
  assert.equal(none.verdict, 'inconclusive');
  assert.match(none.note, /no samples/);
  const shortRuns = judge({ runs: [two[0], runQuantileStats(runSamples(r, { n: 30 }))], candidate: run(), spread });
  assert.match(shortRuns.note, /1 with under 100 samples/);
});

test('the spread is pooled over metrics and counts their degrees of freedom', () => {
  const r = rng(11);
  const runs = (k) => Array.from({ length: k }, () => runQuantileStats(runSamples(r, { tau: 0.1 })));
  const s = pooledSpread({ a: runs(3), b: runs(3), c: runs(1) });
  assert.equal(s.df, 4);
  assert.equal(s.metrics, 2);
  assert.ok(s.tau2 >= 0);
  assert.deepEqual(pooledSpread({ a: runs(1) }), { tau2: null, df: 0, metrics: 0 });
});

test('a change under minDeltaMs is ok whatever its interval; above it the interval decides', () => {
  // Three calm runs of a 1.2 ms GET and a candidate 30 % slower (+0.36 ms): significant, but tiny.
  const r = rng(42);
  const runs = Array.from({ length: 3 }, () => runQuantileStats(runSamples(r, { n: 2000, medianMs: 1.2, sigma: 0.1, tau: 0.001 })));
  const spread = pooledSpread({ get: runs });
  const candidate = runQuantileStats(runSamples(r, { n: 2000, medianMs: 1.2, sigma: 0.1, tau: 0.001, factor: 1.3 }));
  const strict = judge({ runs, candidate, spread, alpha: 0.001 });
  assert.equal(strict.verdict, 'regressed', JSON.stringify(strict));
  const floored = judge({ runs, candidate, spread, alpha: 0.001, minDeltaMs: 2 });
  assert.equal(floored.verdict, 'ok');
  assert.match(floored.note, /under 2 ms/);
  assert.deepEqual(floored.interval, strict.interval, 'the interval is still shown');
  // The same +30 % on a 40 ms transaction (+12 ms) stays regressed.
  const slow = Array.from({ length: 3 }, () => runQuantileStats(runSamples(r, { n: 2000, medianMs: 40, sigma: 0.1, tau: 0.001 })));
  const cand40 = runQuantileStats(runSamples(r, { n: 2000, medianMs: 40, sigma: 0.1, tau: 0.001, factor: 1.3 }));
  assert.equal(judge({ runs: slow, candidate: cand40, spread: pooledSpread({ tx: slow }), alpha: 0.001, minDeltaMs: 2 }).verdict, 'regressed');
});

test('predict: the prediction interval of a new run from k runs (s² · (1 + 1/k), k - 1 degrees of freedom); it holds its false-alarm rate and widens with few runs', () => {
  let x = 7;
  const u = () => ((x = (x * 16807) % 2147483647) / 2147483647);
  const z = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  const run = (mu) => ({ n: 1000, q: Math.exp(mu), logQ: mu, se: 0.001 });
  // A/A over many seeds: regressed at most about alpha of the time, for k = 2 and k = 4.
  for (const k of [2, 4]) {
    let alarms = 0;
    const trials = 2000;
    for (let i = 0; i < trials; i++) {
      const runs = Array.from({ length: k }, () => run(0.2 * z()));
      if (predict({ runs, candidate: run(0.2 * z()), alpha: 0.05 }).verdict === 'regressed') alarms++;
    }
    assert.ok(alarms / trials > 0.03 && alarms / trials < 0.07, `k=${k}: ${alarms}/${trials}`);
  }
  // The interval by hand: runs 0 and 0.2 (mean 0.1, s² 0.02), candidate 0.5, alpha 0.05, df 1 (t = 6.314).
  const v = predict({ runs: [run(0), run(0.2)], candidate: run(0.5), alpha: 0.05 });
  const half = 6.3138 * Math.sqrt(0.02 * 1.5);
  assert.equal(v.df, 1);
  assert.ok(Math.abs(v.interval[0] - (Math.exp(0.4 - half) - 1) * 100) < 0.1 && Math.abs(v.interval[1] - (Math.exp(0.4 + half) - 1) * 100) < 0.1, JSON.stringify(v.interval));
  assert.equal(v.verdict, 'ok', 'one degree of freedom: +49 % is within a run of the same system');
  assert.match(predict({ runs: [run(0)], candidate: run(1) }).note, /baseline has 1 usable run, needs 2/);
  assert.match(predict({ runs: [run(0), run(0)], candidate: run(1) }).note, /identical/);
});
