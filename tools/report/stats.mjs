// Small statistics the report needs beyond InfluxDB's aggregates. Pure.

/**
 * Least-squares line of value over time in hours: {slope per hour, r2, mean, spanH}. points:
 * [[epochMs, value], ...]. null with fewer than two distinct times (a slope needs a span). r2 is
 * the share of the values' variance the line explains (1 when they are all equal: nothing to explain).
 */
export function linearFit(points) {
  const pts = points.filter(([t, v]) => Number.isFinite(t) && Number.isFinite(v));
  if (pts.length < 2) return null;
  const t0 = pts[0][0];
  const xs = pts.map(([t]) => (t - t0) / 3600000);
  const ys = pts.map(([, v]) => v);
  const n = pts.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
    syy += (ys[i] - my) ** 2;
  }
  if (sxx === 0) return null;
  return { slope: sxy / sxx, r2: syy === 0 ? 1 : (sxy * sxy) / (sxx * syy), mean: my, spanH: Math.max(...xs) - Math.min(...xs) };
}

/**
 * Least-squares slope of value over time, per hour: the "memory growth per hour" of the release
 * reports' longevity tables. points: [[epochMs, value], ...]. null with fewer than two distinct
 * times (a slope needs a span).
 */
export function growthPerHour(points) {
  return linearFit(points)?.slope ?? null;
}

/** (b / a - 1) x 100; null when a is 0 or either is missing. */
export function deltaPct(a, b) {
  return typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && Number.isFinite(b) && a !== 0 ? (b / a - 1) * 100 : null;
}

/** The mod-search report's "times better": how many times faster B is than A (A / B for times). */
export function timesBetter(a, b) {
  return typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : null;
}

/**
 * The regression gate's rule (lib/thresholds.js): B regressed when it exceeds A x (1 + tolerance)
 * + slack; symmetrically, it improved when A exceeds B x (1 + tolerance) + slack; otherwise the
 * difference is within noise. Times in the unit of slack (ms).
 */
export function verdict(a, b, { tolerance, slackMs }) {
  if (typeof a !== 'number' || typeof b !== 'number' || !Number.isFinite(a) || !Number.isFinite(b)) return 'not comparable';
  if (b > a * (1 + tolerance) + slackMs) return 'regressed';
  if (a > b * (1 + tolerance) + slackMs) return 'improved';
  return 'within noise';
}
