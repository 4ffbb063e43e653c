// bench-samples' arithmetic (tools/bench-samples.mjs): a short run's points and bytes, extrapolated
// to the profile's real length. Pure.

const MB = 1024 * 1024;

/**
 * A short run: `written` points in `loadSeconds` of load over `steps` (user counts, equal time
 * each), `bytes` on disk once compacted, `perStep` the points at each user count (optional), and
 * the real run's `realStepSeconds` per step. Every real step is the short one made longer, so the
 * real run's points are written x realStepSeconds / (loadSeconds / steps).
 */
export function extrapolate({ written, unselected = 0, bytes, loadSeconds, steps, realStepSeconds, perStep = null }) {
  const stepSeconds = loadSeconds / steps.length;
  const factor = realStepSeconds / stepSeconds;
  const realSeconds = realStepSeconds * steps.length;
  const bytesPerPoint = written > 0 ? bytes / written : 0;
  const peak = perStep && perStep[steps.at(-1)] !== undefined ? perStep[steps.at(-1)] / stepSeconds : written / loadSeconds;
  return {
    written,
    unselected,
    bytes,
    pointsPerSecond: written / loadSeconds,
    peakPointsPerSecond: peak,
    bytesPerPoint,
    realHours: realSeconds / 3600,
    realPoints: written * factor,
    realBytes: bytes * factor,
    mbPerHourAtPeak: (peak * 3600 * bytesPerPoint) / MB,
  };
}

const f = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** The Markdown table of bench-samples, with its caveat. */
export function renderSamplesTable(rows, { seconds, date }) {
  const out = [
    `**InfluxDB samples per run** (${date}; short runs of ${seconds} s per step on minifolio fast, extrapolated to the real length: an estimate, not a measurement of it)`,
    '',
    '| run | points/s (avg) | points/s (last step) | bytes/point on disk | MB/hour (last step) | real length | points (extrapolated) | disk (extrapolated) |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const r of rows) {
    out.push(`| ${r.name} | ${f(r.pointsPerSecond, 1)} | ${f(r.peakPointsPerSecond, 1)} | ${f(r.bytesPerPoint, 2)} | ${f(r.mbPerHourAtPeak, 1)} | ${f(r.realHours, 1)} h | ${f(r.realPoints / 1e6, 1)} M | ${f(r.realBytes / MB, 0)} MB |`);
  }
  const kept = rows.find((r) => !r.floor && /^longevity/.test(r.name));
  const all = rows.find((r) => r.floor);
  if (kept && all) {
    out.push('', `Writing only what the dashboards, report and verdict read (lib/metrics.js STORED_METRICS) against every k6 metric (K6_INFLUXDB_METRICS='*'): ${f(kept.pointsPerSecond / all.pointsPerSecond, 2)}x the points, ${f(kept.realBytes / all.realBytes, 2)}x the disk of a 24-hour longevity run.`);
  }
  return `${out.join('\n')}\n`;
}
