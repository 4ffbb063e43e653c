// The longevity section's pure half: the periods a run's response times are compared over, and
// each module's memory trend over the whole run with the leak verdict's rule.
import { linearFit } from './stats.mjs';

const HOUR = 3600000;

/**
 * First hour, middle, last hour for runs of 3 hours or more (the release reports' longevity
 * periods); shorter runs are cut in thirds, so the three periods are still comparable.
 * @returns {{kind: 'hours'|'thirds', periods: Array<{label, fromMs, toMs}>}}
 */
export function periods(fromMs, toMs) {
  const span = toMs - fromMs;
  if (span >= 3 * HOUR) {
    return {
      kind: 'hours',
      periods: [
        { label: 'first hour', fromMs, toMs: fromMs + HOUR },
        { label: 'middle', fromMs: fromMs + HOUR, toMs: toMs - HOUR },
        { label: 'last hour', fromMs: toMs - HOUR, toMs },
      ],
    };
  }
  const third = span / 3;
  return {
    kind: 'thirds',
    periods: [
      { label: 'first third', fromMs, toMs: fromMs + third },
      { label: 'middle third', fromMs: fromMs + third, toMs: fromMs + 2 * third },
      { label: 'last third', fromMs: fromMs + 2 * third, toMs },
    ],
  };
}

/**
 * The leak rule: resident memory grows by more than `growthPctPerHour` % of its run average per
 * hour, the least-squares line explains at least `minR2` of the variance (steady growth, not GC
 * saw-teeth), and the climb has not levelled off: the second half of the run grows at least
 * `minLateShare` of the whole run's rate (a heap or cache warming up after a start climbs, then
 * flattens; a leak keeps climbing). Needs `minSpanMin` minutes of samples.
 */
export const LEAK_RULE = { growthPctPerHour: 5, minR2: 0.6, minLateShare: 0.5, minSpanMin: 2 };

export function describeLeakRule(rule = LEAK_RULE) {
  return `a module leaks when its RSS grows by more than ${rule.growthPctPerHour} % of its run average per hour (least squares over the whole run), the fit's R² is at least ${rule.minR2}, and the second half of the run still grows at ${rule.minLateShare * 100} % or more of that rate (warm-up levels off, a leak does not); with less than ${rule.minSpanMin} minutes of samples there is no verdict`;
}

/**
 * @param {Array<[epochMs, bytes]>} points a module's RSS over the run
 * @returns {{growthPerHour, lateGrowthPerHour, growthPct, r2, mean, verdict: 'leak'|'no leak'|'too short'}}
 */
export function memoryTrend(points, rule = LEAK_RULE) {
  const pts = points.filter(([t, v]) => Number.isFinite(t) && Number.isFinite(v)).sort((a, b) => a[0] - b[0]);
  const fit = linearFit(pts);
  if (!fit || fit.spanH * 60 < rule.minSpanMin) return { growthPerHour: fit?.slope ?? null, lateGrowthPerHour: null, growthPct: null, r2: fit?.r2 ?? null, mean: fit?.mean ?? null, verdict: 'too short' };
  const mid = pts[0][0] + (pts[pts.length - 1][0] - pts[0][0]) / 2;
  const late = linearFit(pts.filter(([t]) => t >= mid));
  const lateSlope = late?.slope ?? null;
  const growthPct = fit.mean > 0 ? (fit.slope / fit.mean) * 100 : null;
  const leak = growthPct !== null && growthPct > rule.growthPctPerHour && fit.r2 >= rule.minR2 && lateSlope !== null && lateSlope >= rule.minLateShare * fit.slope;
  return { growthPerHour: fit.slope, lateGrowthPerHour: lateSlope, growthPct, r2: fit.r2, mean: fit.mean, verdict: leak ? 'leak' : 'no leak' };
}
