// The arithmetic of the baseline comparison, pure (no I/O): quantiles and their sampling error from
// a run's samples, a compact log-spaced histogram, and the normal and Student t quantiles.

/** The p-quantile (0..1) of ascending `sorted`, interpolated between the closest ranks as k6 does. */
export function quantileSorted(sorted, p) {
  const n = sorted.length;
  if (n === 0) return null;
  const h = (n - 1) * Math.min(1, Math.max(0, p));
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

// Durations of 0 ms (a clock tick) would make log() -Infinity; a microsecond is below any real one.
const FLOOR_MS = 1e-3;
const logOf = (ms) => Math.log(Math.max(ms, FLOOR_MS));

/**
 * One run's figures for quantile p of its samples (ms): n, the quantile, its log, and the standard
 * error of that log from the order statistics: the rank of the sample quantile is binomial(n, p), so
 * ranks n·p ± sqrt(n·p·(1-p)) bound one standard error; se = half the log-distance between the
 * values at those ranks. Distribution-free, and exact enough for the n of a load test (>= 100).
 */
export function runQuantileStats(samples, p = 0.95) {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  if (n === 0) return { n: 0, q: null, logQ: null, se: null };
  const q = quantileSorted(sorted, p);
  const s = Math.sqrt(n * p * (1 - p));
  const lo = quantileSorted(sorted, (n * p - s) / n);
  const hi = quantileSorted(sorted, (n * p + s) / n);
  return { n, q, logQ: logOf(q), se: (logOf(hi) - logOf(lo)) / 2 };
}

// A log-spaced histogram: bin i holds [LOW·10^(i/PER_DECADE), LOW·10^((i+1)/PER_DECADE)). 40 bins
// per decade are 5.9 % wide (±2.9 % around a bin's centre), finer than any change the gate can
// see; a run of a few thousand samples fills a few dozen bins.
export const HISTOGRAM = { lowMs: 0.01, perDecade: 40 };

/** {lowMs, perDecade, counts: {bin: count}} of samples in ms (sparse; bins as decimal strings). */
export function histogramOf(samples, { lowMs, perDecade } = HISTOGRAM) {
  const counts = {};
  for (const v of samples) {
    const i = Math.max(0, Math.floor(perDecade * Math.log10(Math.max(v, lowMs) / lowMs)));
    counts[i] = (counts[i] || 0) + 1;
  }
  return { lowMs, perDecade, counts };
}

/** The p-quantile of a histogram (the geometric centre of the bin holding rank p·n), or null. */
export function histogramQuantile(h, p) {
  const bins = Object.entries(h.counts).map(([i, c]) => [Number(i), c]).sort((a, b) => a[0] - b[0]);
  const n = bins.reduce((s, [, c]) => s + c, 0);
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(p * n));
  let seen = 0;
  for (const [i, c] of bins) {
    seen += c;
    if (seen >= rank) return h.lowMs * 10 ** ((i + 0.5) / h.perDecade);
  }
  return null;
}

/** Sums histograms of the same layout. */
export function mergeHistograms(hs) {
  const counts = {};
  for (const h of hs) for (const [i, c] of Object.entries(h.counts)) counts[i] = (counts[i] || 0) + c;
  return { lowMs: hs[0]?.lowMs ?? HISTOGRAM.lowMs, perDecade: hs[0]?.perDecade ?? HISTOGRAM.perDecade, counts };
}

/** The standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p) {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p=${p} is not in (0, 1)`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const pl = 0.02425;
  if (p < pl) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - pl) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

function logGamma(x) {
  const g = [76.18009172947146, -86.50532032941678, 24.01409824083091, -1.231739572450155, 0.1208650973866179e-2, -0.5395239384953e-5];
  let y = x;
  const t = x + 5.5 - (x + 0.5) * Math.log(x + 5.5);
  let s = 1.000000000190015;
  for (const c of g) s += c / ++y;
  return -t + Math.log((2.5066282746310007 * s) / x);
}

// Continued fraction of the regularized incomplete beta function (Lentz's method).
function betaCF(a, b, x) {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-12) break;
  }
  return h;
}

function incBeta(a, b, x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const bt = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (bt * betaCF(a, b, x)) / a : 1 - (bt * betaCF(b, a, 1 - x)) / b;
}

/** P(T <= t) for Student's t with df degrees of freedom (df may be fractional or Infinity). */
export function tCdf(t, df) {
  if (!Number.isFinite(df) || df > 1e7) return 0.5 * (1 + erf(t / Math.SQRT2));
  const x = df / (df + t * t);
  const tail = 0.5 * incBeta(df / 2, 0.5, x);
  return t >= 0 ? 1 - tail : tail;
}

// erf(z) is the regularized lower incomplete gamma P(1/2, z²).
const erf = (x) => Math.sign(x) * gammaP(0.5, x * x);

function gammaP(a, x) {
  if (x <= 0) return 0;
  const gln = logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let del = sum;
    for (let ap = a, i = 0; i < 500; i++) {
      del *= x / ++ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * 1e-15) break;
    }
    return sum * Math.exp(-x + a * Math.log(x) - gln);
  }
  let b = x + 1 - a;
  let c = 1 / 1e-300;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 500; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (Math.abs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return 1 - Math.exp(-x + a * Math.log(x) - gln) * h;
}

/** The p-quantile of Student's t with df degrees of freedom (bisection on tCdf; Infinity: normal). */
export function tQuantile(p, df) {
  if (!(p > 0 && p < 1)) throw new RangeError(`tQuantile: p=${p} is not in (0, 1)`);
  if (!Number.isFinite(df) || df > 1e7) return normalQuantile(p);
  if (p < 0.5) return -tQuantile(1 - p, df);
  let lo = 0;
  let hi = Math.max(1, normalQuantile(p));
  while (tCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** The sample variance (n - 1 in the denominator); 0 for fewer than 2 values. */
export function variance(xs) {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
}
