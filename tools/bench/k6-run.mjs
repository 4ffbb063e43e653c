// One k6 run under measurement: bin/k6 with its REST API on 127.0.0.1:FP_K6_API_PORT, sampled once
// a second (CPU and memory from /proc, requests and iterations from the API), and its steady
// window: from `warmS` after the first iteration, for `windowS`.
import { spawn } from 'node:child_process';
import { openSync, closeSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sampler, windowOf } from './measure.mjs';
import { METRICS } from '../../lib/metrics.js';

// The counters read from k6's REST API each second, by the field they get in a sample.
const COUNTERS = { reqs: METRICS.httpReqs, iterations: METRICS.iterations };

async function counter(port, name) {
  const r = await fetch(`http://127.0.0.1:${port}/v1/metrics/${name}`, { signal: AbortSignal.timeout(3000) });
  if (!r.ok) return 0; // no sample of it yet
  return (await r.json()).data.attributes.sample.count;
}

/**
 * opts: { repo, script, env, args (more k6 run arguments, e.g. -o ...), apiPort, log (file),
 * warmS, windowS, k6 (the binary; default repo/bin/k6) }. A run with TESTID gets results/<TESTID>/
 * made first, where its handleSummary writes. Resolves to { code, series, window } (window: windowOf's figures plus
 * reqPerS, usPerReq, msPerIteration; null when the run ended before the window closed).
 */
export async function measureK6(opts) {
  if (opts.env && opts.env.TESTID) mkdirSync(join(opts.repo, 'results', opts.env.TESTID), { recursive: true });
  const fd = openSync(opts.log, 'w');
  const child = spawn(opts.k6 || join(opts.repo, 'bin', 'k6'), ['run', '--quiet', `--address=127.0.0.1:${opts.apiPort}`, ...(opts.args || []), opts.script], {
    cwd: opts.repo,
    env: { ...process.env, K6_NO_USAGE_REPORT: 'true', K6_AUTO_EXTENSION_RESOLUTION: 'false', ...opts.env },
    stdio: ['ignore', fd, fd],
  });
  const exited = new Promise((ok) => child.on('exit', (c) => ok(c ?? 128)));
  const s = sampler(child.pid, {
    extra: async () => {
      const fields = Object.keys(COUNTERS);
      const values = await Promise.all(fields.map((f) => counter(opts.apiPort, COUNTERS[f])));
      return Object.fromEntries(fields.map((f, i) => [f, values[i]]));
    },
  });
  const code = await exited;
  s.stop();
  await s.done;
  closeSync(fd);
  return { code, series: s.series, window: steady(s.series, opts.warmS, opts.windowS) };
}

// The window starts warmS after the first iteration (the VUs are initialised, set-up is done) and
// must end before the iterations stop.
export function steady(series, warmS, windowS) {
  const first = series.find((x) => x.iterations > 0);
  const last = [...series].reverse().find((x, i, r) => x.iterations !== undefined && r[i + 1] && x.iterations > r[i + 1].iterations);
  if (!first || !last) return null;
  const from = first.t + warmS * 1000;
  const to = from + windowS * 1000;
  if (to > last.t) return null;
  const w = windowOf(series, from, to, Object.keys(COUNTERS));
  return { ...w, reqPerS: w.reqs / w.seconds, usPerReq: (w.cpuS / w.reqs) * 1e6, msPerIteration: (w.cpuS / w.iterations) * 1e3 };
}
