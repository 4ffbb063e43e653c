// The longevity section's pure half: the periods a run's response times are compared over, and
// each module's memory trend over the whole run with the leak verdict's rule.
import { linearFit } from './stats.mjs';

const HOUR = 3600000;

/**
 * When response time per period means something: under one constant load (a run of one user-count
 * step, and one phase), for long enough that a third of it (or an hour of a long run) holds minutes
 * of samples. A stepped run's thirds compare different loads (the first third of a 1-5-8-20 run is
 * its 1-user step), and a few minutes' thirds compare noise.
 */
export const LONGEVITY_RULE = Object.freeze({ minMinutes: 30 });

/** {judged: true} or {judged: false, reason} for the run's steps ([{vus, phase, fromMs, toMs}]). */
export function longevityJudgement(steps, rule = LONGEVITY_RULE) {
  if (!Array.isArray(steps) || steps.length === 0) return { judged: false, reason: 'the run has no steps with samples' };
  if (steps.length > 1) return { judged: false, reason: `the run changes its load (${steps.length} steps: ${steps.map((s) => `${s.vus}${s.phase ? ` ${s.phase}` : ''}`).join(', ')}), so its periods would compare different loads; longevity needs one constant load` };
  const min = (steps[0].toMs - steps[0].fromMs) / 60000;
  if (min < rule.minMinutes) return { judged: false, reason: `the run's constant load lasted ${min.toFixed(1)} minutes; longevity needs ${rule.minMinutes} minutes or more` };
  return { judged: true };
}

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
 * The leak rule: resident memory grows by more than `growthPctPerHour` % of its average per hour
 * (least squares), by more than `windowGrowthPct` % of its average over the judged window (the
 * line's rise over it), the line explains at least `minR2` of the variance (steady growth, not GC
 * saw-teeth), and the climb has not levelled off: the second half of the window grows at least
 * `minLateShare` of the whole window's rate (a heap or cache warming up after a start climbs, then
 * flattens; a leak keeps climbing). Needs `minSpanMin` minutes of samples.
 *
 * The two growth bounds answer different run lengths. Per hour decides a long run: 5 %/h is the
 * 24-hour longevity test's scale (leak profile: about 0.6 GB in 24 h). Over the window decides a
 * short one, where a rate per hour extrapolates a few minutes: 13 minutes of constant load under
 * minifolio `fast` (docs/benchmarks.md, make bench-leak) had the Go modules still creeping 1-4 MiB/h (3.5-11.7
 * %/h, R² up to 0.95) after the first fifth, i.e. 0.6-2 % of their RSS over the window, where the
 * `leak` profile's mod-circulation rose 87 % (383 MiB/h).
 */
export const LEAK_RULE = { growthPctPerHour: 5, windowGrowthPct: 5, minR2: 0.6, minLateShare: 0.5, minSpanMin: 2 };

/**
 * Processes of the stack whose RSS is not a leak measure; they get "not judged" and the reason.
 * PostgreSQL's figure is the sum over its backends, each counting every shared-buffer page it has
 * touched, so it climbs with the pages a run touches (a 13-minute `fast` run: +1.26 GB/h, R² 0.92;
 * of 751 MiB summed during such a run, 437 MiB were shared memory, 231 MiB file pages and 83 MiB
 * private) without any process holding more memory. InfluxDB is folio-perf's own sample store, not the
 * system under test; its cache grows with the samples written until it snapshots.
 */
export const NOT_JUDGED = Object.freeze({
  postgres: 'RSS summed over backends counts each shared buffer once per backend',
  influxdb: "folio-perf's sample store, not the system under test",
});

export function describeLeakRule(rule = LEAK_RULE) {
  return `a module leaks when its RSS grows by more than ${rule.growthPctPerHour} % of its average per hour and by more than ${rule.windowGrowthPct} % of it over the judged window (least squares), the fit's R² is at least ${rule.minR2}, and the second half of the window still grows at ${rule.minLateShare * 100} % or more of that rate (warm-up levels off, a leak does not); with less than ${rule.minSpanMin} minutes of samples there is no verdict; ${Object.entries(NOT_JUDGED).map(([m, why]) => `${m} is not judged (${why})`).join('; ')}`;
}

/**
 * @param {Array<[epochMs, bytes]>} points a module's RSS over the judged window
 * @returns {{growthPerHour, lateGrowthPerHour, growthPct, windowGrowthPct, r2, mean, verdict: 'leak'|'no leak'|'too short'}}
 */
export function memoryTrend(points, rule = LEAK_RULE) {
  const pts = points.filter(([t, v]) => Number.isFinite(t) && Number.isFinite(v)).sort((a, b) => a[0] - b[0]);
  const fit = linearFit(pts);
  if (!fit || fit.spanH * 60 < rule.minSpanMin) return { growthPerHour: fit?.slope ?? null, lateGrowthPerHour: null, growthPct: null, windowGrowthPct: null, r2: fit?.r2 ?? null, mean: fit?.mean ?? null, verdict: 'too short' };
  const mid = pts[0][0] + (pts[pts.length - 1][0] - pts[0][0]) / 2;
  const late = linearFit(pts.filter(([t]) => t >= mid));
  const lateSlope = late?.slope ?? null;
  const growthPct = fit.mean > 0 ? (fit.slope / fit.mean) * 100 : null;
  const windowGrowthPct = growthPct === null ? null : growthPct * fit.spanH;
  const leak =
    growthPct !== null && growthPct > rule.growthPctPerHour && windowGrowthPct > rule.windowGrowthPct && fit.r2 >= rule.minR2 && lateSlope !== null && lateSlope >= rule.minLateShare * fit.slope;
  return { growthPerHour: fit.slope, lateGrowthPerHour: lateSlope, growthPct, windowGrowthPct, r2: fit.r2, mean: fit.mean, verdict: leak ? 'leak' : 'no leak' };
}

/**
 * The window the leak verdict is judged over: the longest user-count step (the last of equally
 * long ones: the highest load) without its first fifth, the new load warming up; with a single
 * step that is the run after minifolio's (or the modules') start. A leak is growth under a
 * constant load: a run that steps its user count up (demo, ptf) grows every process's memory with
 * each step (more connections, buffers, caches). null without steps (the whole run is judged).
 */
export function judgedWindow(steps) {
  if (!Array.isArray(steps) || steps.length === 0) return null;
  const longest = steps.reduce((a, b) => (b.toMs - b.fromMs >= a.toMs - a.fromMs ? b : a));
  const len = longest.toMs - longest.fromMs;
  return { fromMs: longest.fromMs + len / 5, toMs: longest.toMs, label: `${longest.vus} users${longest.phase ? `, ${longest.phase}` : ''}` };
}

/**
 * Each module's trend and verdict over the judged window of `steps`: what the report's memory table
 * and the comparison's both show. modules: [{module, mem: [[t, bytes], ...]}].
 */
export function moduleTrends(modules, steps, rule = LEAK_RULE) {
  const w = judgedWindow(steps);
  const judged = (mem) => (w ? mem.filter(([t]) => t >= w.fromMs && t <= w.toMs) : mem);
  return (modules || []).map((m) => {
    const t = memoryTrend(judged(m.mem), rule);
    return { module: m.module, ...t, verdict: NOT_JUDGED[m.module] && t.verdict !== 'too short' ? 'not judged' : t.verdict };
  });
}
