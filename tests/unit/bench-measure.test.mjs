// The benchmarks' arithmetic (tools/bench/measure.mjs, k6-run.mjs): the steady window of a sampled
// run, the figures taken over it, and min / median / max. No process is started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { windowOf, spread, cpuSeconds, memoryKiB } from '../../tools/bench/measure.mjs';
import { steady } from '../../tools/bench/k6-run.mjs';

// One sample a second from t = 0: k6 initialises VUs (no counters: its REST API not up yet), then
// sets up, then iterates from 10 s to 70 s at 10 iterations and 170 requests a second, using
// 0.5 s of CPU a second, then tears down.
const series = [];
for (let s = 0; s <= 90; s++) {
  const t = 1_000_000 + s * 1000;
  const sample = { t, cpu: 0.5 * s, rss: 100_000, peak: 100_000 + s };
  if (s >= 3) {
    const it = Math.max(0, Math.min(s, 70) - 10);
    Object.assign(sample, { iterations: it * 10, reqs: 5 + it * 170 });
  }
  series.push(sample);
}

test('steady: the window starts warmS after the first iteration and ends before the iterations stop', () => {
  const w = steady(series, 20, 30);
  assert.equal(w.from, 1_000_000 + 31_000); // first iteration counted at 11 s
  assert.equal(w.to, 1_000_000 + 61_000);
  assert.equal(w.iterations, 300);
  assert.equal(w.reqs, 5100);
  assert.equal(w.cpuS, 15);
  assert.equal(w.reqPerS, 170);
  assert.ok(Math.abs(w.usPerReq - (15 / 5100) * 1e6) < 1e-6);
  assert.equal(w.msPerIteration, 50);
  assert.equal(w.peakKiB, 100_061, 'the peak reached by the window end');
});

test('steady: no window when the run stopped iterating before it closed, or never iterated', () => {
  assert.equal(steady(series, 40, 30), null);
  assert.equal(steady(series.map(({ iterations, reqs, ...x }) => x), 1, 1), null);
  // a gap in the counters (the API did not answer) is passed over
  const gappy = series.map((x, i) => (i % 3 === 0 ? { t: x.t, cpu: x.cpu, rss: x.rss, peak: x.peak } : x));
  assert.ok(steady(gappy, 20, 30));
});

test('windowOf: counters by name, a window past the run throws with the fix', () => {
  const w = windowOf(series, 1_000_000 + 20_000, 1_000_000 + 40_000, ['iterations']);
  assert.equal(w.iterations, 200);
  assert.equal(w.seconds, 20);
  assert.throws(() => windowOf([], 0, 1), /fix: give it a longer duration/);
});

test('spread: min, median (middle two averaged), max; non-numbers left out', () => {
  assert.deepEqual(spread([3, 1, 2]), { min: 1, median: 2, max: 3, n: 3 });
  assert.deepEqual(spread([4, 1, NaN, 2, 3]), { min: 1, median: 2.5, max: 4, n: 4 });
  assert.equal(spread([]).n, 0);
});

test('cpuSeconds and memoryKiB read this process, and null for one that is gone', () => {
  assert.ok(cpuSeconds(process.pid) >= 0);
  const m = memoryKiB(process.pid);
  assert.ok(m.rss > 0 && m.peak >= m.rss);
  assert.equal(cpuSeconds(2 ** 22 + 7), null);
  assert.equal(memoryKiB(2 ** 22 + 7), null);
});
