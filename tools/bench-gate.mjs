#!/usr/bin/env node
// `make bench-gate`: the regression gate's false-alarm rate and power, measured (not a test: the
// figures depend on the machine and its load).
//
// Short CICO runs (folio-perf run, PROFILE=smoke: 1 user, no think time) on minifolio `fast` and on
// the slowdown profiles fast-checkout-plus10/25/50 (check-out's POST answers 10/25/50 % later),
// interleaved (fast, plus10, plus25, plus50, fast, ...) so that the machine's slow swings hit every
// profile alike. Then every baseline of BENCH_GATE_K fast runs (each subset of the fast runs) is
// compared, by the verdict's own code, with
//   A/A: every fast run not in that baseline (a regressed verdict there is a false alarm),
//   A/B: every run of each slowdown profile (regressed there is a detection).
// The comparisons reuse runs, so they are not independent: a rate from them is an estimate with a
// wider error than its count suggests (the number of distinct runs is the honest sample size).
//
// Environment: BENCH_GATE_DURATION (default 120s per run), BENCH_GATE_FAST (fast runs, default 7),
// BENCH_GATE_SLOW (runs per slowdown profile, default 3), BENCH_GATE_K (baseline runs, default 4),
// BENCH_GATE_ALPHA (the gate's false-alarm rate, default 0.05), BENCH_GATE_RUNS=<runs.json> to
// analyse the runs of an earlier bench again without running anything. Needs the stack
// (FP_INFLUX_URL) and bin/k6, bin/minifolio. Writes results/bench-gate-<time>/{runs.json,bench-gate.md}.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { influxClient } from './report/influx.mjs';
import { readRunSamples, buildBaseline } from './verdict/baseline-format.mjs';
import { txKey, apiKey } from '../lib/metrics.js';
import { compareRun, SPEED } from './verdict/baseline.mjs';
import { testidStamp } from '../lib/testid.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = (k, d) => process.env[k] || d;
const DURATION = env('BENCH_GATE_DURATION', '120s');
const N_FAST = Number(env('BENCH_GATE_FAST', '7'));
const N_SLOW = Number(env('BENCH_GATE_SLOW', '3'));
const K = Number(env('BENCH_GATE_K', '4'));
const ALPHA = Number(env('BENCH_GATE_ALPHA', '0.05'));
const SLOW = ['fast-checkout-plus10', 'fast-checkout-plus25', 'fast-checkout-plus50'];
const stamp = testidStamp();

function die(msg) {
  process.stderr.write(`bench-gate: ${msg}\n`);
  process.exit(1);
}
if (!process.env.FP_INFLUX_URL) die('FP_INFLUX_URL is not set; fix: source tools/test-env.sh (or tools/defaults.sh) and start the stack (stack/stack.sh up)');
if (!(K >= 2 && N_FAST > K)) die(`BENCH_GATE_K=${K} with BENCH_GATE_FAST=${N_FAST}: a baseline needs 2 or more runs and a held-out fast run; fix: BENCH_GATE_FAST > BENCH_GATE_K >= 2`);

function oneRun(profile, i) {
  const testid = `bench-gate-${profile}-${i}-${stamp}`;
  const t0 = Date.now();
  // Bounded: the run's own length plus setup and teardown, at most 10 minutes.
  const r = spawnSync(process.execPath, [join(ROOT, 'tools', 'folio-perf.mjs'), 'run'], {
    cwd: ROOT,
    env: { ...process.env, PROFILE: 'smoke', DURATION, MINIFOLIO_PROFILE: profile, TESTID: testid, K6_AUTO_EXTENSION_RESOLUTION: 'false' },
    encoding: 'utf8',
    timeout: 600_000,
  });
  const secs = ((Date.now() - t0) / 1000).toFixed(0);
  if (r.status !== 0) die(`run ${testid} exited ${r.status ?? r.signal} after ${secs}s: ${(r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' | ')}`);
  process.stdout.write(`  ${testid}: ${secs}s\n`);
  const meta = JSON.parse(readFileSync(join(ROOT, 'results', testid, 'summary.json'), 'utf8')).meta;
  return { profile, testid, meta };
}

let runs;
let outDir;
if (process.env.BENCH_GATE_RUNS) {
  runs = JSON.parse(readFileSync(process.env.BENCH_GATE_RUNS, 'utf8')).runs;
  outDir = dirname(process.env.BENCH_GATE_RUNS);
} else {
  outDir = join(ROOT, 'results', `bench-gate-${stamp}`);
  mkdirSync(outDir, { recursive: true });
  const order = [];
  for (let i = 0; i < Math.max(N_FAST, N_SLOW); i++) {
    if (i < N_FAST) order.push(['fast', i]);
    for (const p of SLOW) if (i < N_SLOW) order.push([p, i]);
  }
  console.log(`bench-gate: ${order.length} runs of ${DURATION} (PROFILE=smoke: 1 user, no think time), interleaved; runs in ${outDir}`);
  runs = [];
  for (const [p, i] of order) {
    runs.push(oneRun(p, i));
    writeFileSync(join(outDir, 'runs.json'), JSON.stringify({ duration: DURATION, runs }, null, 1));
  }
}

const client = influxClient(process.env.FP_INFLUX_URL);
let slowApis;
try {
  slowApis = Object.keys(JSON.parse(readFileSync(join(ROOT, 'thresholds.json'), 'utf8')).workflows.cico.apis || {});
} catch (e) {
  die(`thresholds.json cannot be read (${e.message}); fix: restore it from the repository`);
}
const runSeconds = Number(String(runs[0].meta.stepDuration || DURATION).replace(/s$/, '')) || 120;
// What shorter runs would have given: the same runs cut to their first WINDOWS seconds.
const WINDOWS = [...new Set([45, 60, runSeconds].filter((w) => w <= runSeconds))];
const samplesByWindow = {};
for (const w of WINDOWS) samplesByWindow[w] = await Promise.all(runs.map((r) => readRunSamples(client, r.testid, { windowSeconds: w === runSeconds ? null : w })));

function* subsets(xs, k, start = 0, acc = []) {
  if (acc.length === k) {
    yield acc.slice();
    return;
  }
  for (let i = start; i < xs.length; i++) {
    acc.push(xs[i]);
    yield* subsets(xs, k, i + 1, acc);
    acc.pop();
  }
}

const CO_TX = txKey('check-out');
const CO_API = apiKey('POST /circulation/check-out-by-barcode');
const fastIdx = runs.map((r, i) => (r.profile === 'fast' ? i : -1)).filter((i) => i >= 0);

// Every baseline of k fast runs against every held-out fast run and every slowdown run.
function analyse(window, k, alpha, control) {
  const sam = samplesByWindow[window];
  const tally = {};
  const count = (arm, rows) => {
    const t = (tally[arm] ||= { n: 0, gate: 0, metrics: {} });
    t.n++;
    if (rows.some((r) => r.verdict === 'regressed')) t.gate++;
    for (const r of rows) {
      const m = (t.metrics[`${r.metric} ${r.stat.slice(0, 5)}`] ||= { regressed: 0, deltas: [] });
      m.stat = r.stat;
      if (r.verdict === 'regressed') m.regressed++;
      if (r.deltaPct !== null) m.deltas.push(r.deltaPct);
    }
  };
  let baselines = 0;
  let judged = 0;
  for (const sub of subsets(fastIdx, k)) {
    baselines++;
    const base = buildBaseline(sub.map((i) => ({ meta: runs[i].meta, samples: sam[i] })), { slowApis });
    judged = Object.keys(base.metrics).length;
    for (const i of fastIdx) if (!sub.includes(i)) count('fast (A/A)', compareRun(base, sam[i], { alpha, control }));
    for (const p of SLOW) runs.forEach((r, i) => r.profile === p && count(`${p} (A/B)`, compareRun(base, sam[i], { alpha, control })));
  }
  return { tally, baselines, judged };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : null;
};
const pctStr = (x, n) => `${((100 * x) / n).toFixed(0)} % (${x}/${n})`;
const fmt = (v) => (v === null ? '–' : `${v >= 0 ? '+' : ''}${v.toFixed(1)} %`);
const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
const fastRuns = fastIdx.length;
const lines = [
  `# make bench-gate, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model?.trim() || 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; load average at the end ${load} (the runs themselves keep about 2 cores busy; whatever else ran on the machine is not controlled).`,
  `Runs: ${runs.length} CICO runs of ${runSeconds} s each (PROFILE=smoke: 1 user, no think time): ${fastRuns} fast, ${SLOW.map((p) => `${runs.filter((r) => r.profile === p).length} ${p}`).join(', ')}, interleaved. Shorter run lengths are the same runs cut to their first seconds.`,
  `Comparisons: each baseline of k fast runs (every subset) against every held-out fast run (A/A) and every slowdown run (A/B), by the verdict's code; the gate's false-alarm rate alpha is split over the judged rows (p95 and p50 of every transaction and slow API).`,
  'The comparisons reuse runs, so they are **not independent**: the honest sample size is the number of distinct runs, and the rates below are estimates with a wider error than their counts suggest.',
  '',
  '| run length | baseline runs k | alpha | judged | comparison | comparisons | gate fails (any row regressed) | check-out POST regressed: p95 / p50 | check-out transaction regressed: p95 / p50 | median Δ check-out POST p95 / p50 | median Δ check-out transaction p95 / p50 |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
];
// Judged as the verdict does by default (absolute quantiles); relative to the run's own speed
// (--control speed, what make perf-gate uses); and relative to check-in's in the same run
// (--control <check-in>), which the slowdown profiles leave alone. Both controls cancel the machine's
// speed from run to run.
const CONTROL = txKey('check-in');
const configs = [];
for (const control of [null, SPEED, CONTROL]) {
  for (const w of WINDOWS) for (const k of [...new Set([2, 3, K])].filter((x) => x < fastRuns)) configs.push([w, k, ALPHA, control]);
  configs.push([45, 2, 0.01, control]); // the end-to-end test's setting
}
const alarms = []; // which rows raised the A/A false alarms, per configuration
for (const [w, k, alpha, control] of configs) {
  if (!samplesByWindow[w]) continue;
  const { tally } = analyse(w, k, alpha, control);
  for (const [arm, t] of Object.entries(tally)) {
    if (arm === 'fast (A/A)') {
      const rows = Object.entries(t.metrics).filter(([, m]) => m.regressed > 0).map(([key, m]) => `${key.replace(/ \S+$/, '')} ${m.stat} ${m.regressed}`);
      alarms.push(`- ${w} s, k ${k}, alpha ${alpha}, ${control === SPEED ? '÷ run speed' : control ? '÷ check-in' : 'absolute'}: ${rows.length ? rows.join('; ') : 'none'}`);
    }
    const none = { regressed: 0, deltas: [] };
    const m = (key, stat) => t.metrics[`${key} ${stat}`] || none;
    const both = (key, f) => `${f(m(key, 'p(95)'))} / ${f(m(key, 'p(50)'))}`;
    const rate = (x) => `${((100 * x.regressed) / t.n).toFixed(0)} %`;
    const med = (x) => fmt(median(x.deltas));
    lines.push(`| ${w} s | ${k} | ${alpha} | ${control === SPEED ? 'quantile ÷ run speed' : control ? 'quantile ÷ check-in\'s' : 'quantile'} | ${arm} | ${t.n} | ${pctStr(t.gate, t.n)} | ${both(CO_API, rate)} | ${both(CO_TX, rate)} | ${both(CO_API, med)} | ${both(CO_TX, med)} |`);
  }
}
lines.push('', 'A/A rows: the false-alarm rate (target ≤ 5 %). A/B rows: the power at that slowdown of the check-out POST (target ≥ 90 % at +25 %); the check-out transaction slows by less, since the POST is one part of it (its median Δ says by how much).', '');
lines.push('## A/A: the rows that were regressed (count over the comparisons)', '', ...alarms, '');
const md = `${lines.join('\n')}\n`;
writeFileSync(join(outDir, 'bench-gate.md'), md);
process.stdout.write(md);
console.log(`written: ${join(outDir, 'bench-gate.md')}`);
