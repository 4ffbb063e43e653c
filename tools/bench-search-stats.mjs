// The arithmetic of make bench-search (tools/bench-search.mjs): quantiles and
// the verdicts of its targets against the floors measured in the same run.
// Pure, so node's test runner covers it (tests/unit/bench-search-stats.test.mjs).

/** Linear-interpolated quantile q (0..1) of xs; NaN when xs is empty. */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

export const median = (xs) => quantile(xs, 0.5);

/** Median and interquartile range of xs, and the IQR relative to the median. */
export function spread(xs) {
  const m = median(xs);
  const q1 = quantile(xs, 0.25);
  const q3 = quantile(xs, 0.75);
  return { median: m, q1, q3, relative: m > 0 ? (q3 - q1) / m : NaN };
}

/**
 * Part 1 (reindex docs/s over raw _bulk docs/s of the same documents): met
 * when the median ratio of the rounds reaches the target; within the floor's
 * noise when it misses by less than the raw bulk's own round-to-round spread
 * (IQR over median: the same work, unchanged, moved that much between
 * rounds, so a smaller shortfall is not a measured one); else not met.
 */
export function reindexVerdict(ratios, bulkRates, target = 0.7) {
  const r = spread(ratios);
  const bulk = spread(bulkRates);
  if (r.median >= target) return 'met';
  if (r.median >= target * (1 - bulk.relative)) return "within the raw bulk's own spread";
  return 'NOT met';
}

/**
 * Part 2 per template (p50s in ms of gateway + mod-search, the floor, and
 * OpenSearch direct): met within the target ratio to direct; beyond the floor
 * when missed but the floor (the same OpenSearch requests through the gateway
 * to a pass-through in the module process: no mod-search logic) is itself
 * over it, so the target asks for less than the hop alone costs; else not met.
 */
export function templateVerdict({ gateway, floor, direct }, target = 1.2) {
  if (gateway / direct <= target) return 'met';
  if (floor / direct > target) return 'beyond the floor';
  return 'NOT met';
}

/**
 * CPU per phase from cumulative CPU-seconds samples [{t (ms), cpu (s)}] of
 * one process (or the machine): the share of one core used between from and
 * to (ms), from the samples nearest inside the window; null with fewer than
 * two samples in it.
 */
export function cpuShare(samples, from, to) {
  const inside = samples.filter((s) => s.t >= from && s.t <= to);
  if (inside.length < 2) return null;
  const a = inside[0];
  const b = inside[inside.length - 1];
  if (b.t === a.t) return null;
  return (b.cpu - a.cpu) / ((b.t - a.t) / 1000);
}
