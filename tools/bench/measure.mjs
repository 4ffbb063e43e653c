// What a load generator costs, read the way the operating system counts it: CPU time (user +
// system, /proc/<pid>/stat) and resident memory (/proc/<pid>/status), sampled once a second while
// the process runs, so a benchmark can take the steady state between two moments and leave out
// start-up (JVM, k6's VU initialisation), set-up and teardown. Shared by make bench-k6 and make
// bench-jmeter. Linux only.
import { readFileSync } from 'node:fs';
import { setting } from '../defaults.mjs';

const TICKS = 100; // USER_HZ: /proc reports CPU time in 1/100 s on Linux

/** CPU seconds (user + system) the process has used so far; null once it is gone. */
export function cpuSeconds(pid) {
  try {
    const after = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(after[11]) + Number(after[12])) / TICKS;
  } catch {
    return null;
  }
}

/** Resident memory now and at its peak, in KiB; null once the process is gone. */
export function memoryKiB(pid) {
  try {
    const t = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(t)[1]);
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return null;
  }
}

/**
 * Samples `pid` every `everyMs` until stop() or until it is gone: { t (epoch ms), cpu (s), rss,
 * peak (KiB), ...await extra() } per sample (extra: e.g. k6's request count from its REST API;
 * a failed extra() leaves its fields out of that sample).
 */
export function sampler(pid, { everyMs = 1000, extra = async () => ({}) } = {}) {
  const series = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const t = Date.now();
      const cpu = cpuSeconds(pid);
      const mem = memoryKiB(pid);
      if (cpu === null || mem === null) break;
      let more = {};
      try {
        more = await extra();
      } catch {
        // not answering yet (k6 before its REST API is up) or already stopping
      }
      series.push({ t, cpu, ...mem, ...more });
      await new Promise((ok) => setTimeout(ok, Math.max(0, everyMs - (Date.now() - t))));
    }
  })();
  return { series, done, stop: () => (stopped = true) };
}

/** The sample nearest to time t (epoch ms) among those with field `key` (all when omitted). */
function nearest(series, t, key) {
  let best = null;
  for (const s of series) if ((key === undefined || s[key] !== undefined) && (best === null || Math.abs(s.t - t) < Math.abs(best.t - t))) best = s;
  return best;
}

/**
 * The steady window [from, to] (epoch ms) of a series: CPU seconds used in it, its length in
 * seconds, the change of every counter named in `counters` (fields of the samples), and the
 * memory peak reached by its end (KiB).
 */
export function windowOf(series, from, to, counters = []) {
  const a = nearest(series, from, counters[0]);
  const b = nearest(series, to, counters[0]);
  if (!a || !b || b.t <= a.t) throw new Error('the process ended before its steady window; fix: give it a longer duration');
  const out = { cpuS: b.cpu - a.cpu, seconds: (b.t - a.t) / 1000, from: a.t, to: b.t, peakKiB: b.peak };
  for (const c of counters) out[c] = b[c] - a[c];
  return out;
}

/** min, median, max of a list of numbers (the median of an even count: the mean of the middle two). */
export function spread(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return { min: NaN, median: NaN, max: NaN, n: 0 };
  const m = v.length >> 1;
  return { min: v[0], median: v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2, max: v[v.length - 1], n: v.length };
}

/** The local stack's PostgreSQL password: FP_PG_PASSWORD (the test stack's), else defaults.env's. */
export const localDbPassword = () => process.env.FP_PG_PASSWORD || setting('FOLIO_DB_PASSWORD');

/** minifolio's database URL on the local stack (tools/defaults.sh's fp_minifolio_db), password encoded. */
export function minifolioDb() {
  return `postgres://folio:${encodeURIComponent(localDbPassword())}@127.0.0.1:${setting('FP_PG_PORT')}/folio?sslmode=disable`;
}
