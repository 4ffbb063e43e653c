// Baseline format 2 from synthetic runs: its contents, the one-line refusals (runs of different
// systems, format 1, broken files), merging files, k6's BASELINE= path reading it, and the verdict's
// rows from it (regressed on a slowed candidate, inconclusive with what is missing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildBaseline, validateBaseline2, mergeBaselines, BASELINE_FORMAT_2 } from '../../tools/verdict/baseline-format.mjs';
import { txKey, apiKey } from '../../lib/metrics.js';
import { compareRun, speedOf, withSharedShock, SPEED } from '../../tools/verdict/baseline.mjs';
import { exitCodeFor } from '../../tools/verdict/index.mjs';
import { renderVerdictMarkdown } from '../../tools/verdict/render.mjs';
import { validateBaseline } from '../../lib/baseline.js';
import { ReportError } from '../../tools/report/errors.mjs';

let seed = 1;
const u = () => {
  seed = (seed * 16807) % 2147483647;
  return seed / 2147483647;
};
const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
const draw = (n, medianMs, factor = 1) => Array.from({ length: n }, () => medianMs * factor * Math.exp(0.3 * normal()));

const POST = 'POST /circulation/check-out-by-barcode';
function samples({ n = 800, factor = 1 } = {}) {
  return {
    transactions: { 'check-out': draw(n, 40, factor > 1 ? 1 + (factor - 1) / 3 : factor), 'check-in': draw(n, 25) },
    apis: { [POST]: draw(n, 11, factor), 'GET /users': draw(2 * n, 1) },
  };
}
const meta = (testid, over = {}) => ({ testid, workflow: 'cico', release: 'fast', profile: 'smoke', steps: [1], think: 'none', startedAt: '2026-11-24T10:00:00Z', stepDuration: '60s', ...over });
const oneLine = (fn) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ReportError, `${e.name}: ${e.message}`);
    assert.ok(!e.message.includes('\n'), 'one line');
    assert.match(e.message, /fix: /);
    return e.message;
  }
  assert.fail('no error');
};

test('a format-2 baseline of three runs: each run per metric, the pooled spread, format 1 stats for k6', () => {
  const b = buildBaseline([1, 2, 3].map((i) => ({ meta: meta(`r${i}`), samples: samples() })), { slowApis: [POST, 'GET /nowhere'] });
  assert.equal(b.format, BASELINE_FORMAT_2);
  assert.deepEqual(Object.keys(b.metrics).sort(), [apiKey(POST), txKey('check-in'), txKey('check-out')].sort());
  const co = b.metrics[txKey('check-out')];
  assert.equal(co.runs.length, 3);
  for (const r of co.runs) {
    assert.equal(r.n, 800);
    assert.ok(r.q > 40 && r.q < 100);
    assert.ok(r.se > 0 && r.se < 0.1);
    assert.equal(Object.values(r.histogram.counts).reduce((s, c) => s + c, 0), 800);
  }
  assert.equal(b.spread.df, 6);
  assert.equal(b.transactions['check-out'].count, 2400);
  assert.ok(b.apis['GET /users'], 'every API pooled for BASELINE=');
  assert.deepEqual(b.runs.map((r) => r.testid), ['r1', 'r2', 'r3']);
  // lib/baseline.js (k6's BASELINE= path) reads format 2
  validateBaseline(JSON.parse(JSON.stringify(b)), 'cico', 'b.json');
  assert.equal(validateBaseline2(JSON.parse(JSON.stringify(b)), 'b.json').format, BASELINE_FORMAT_2);
});

test('runs of another workflow, release, profile, think time or user steps are refused in one line', () => {
  for (const [k, v] of [['workflow', 'search'], ['release', 'lotus'], ['profile', 'demo'], ['think', 'ptf'], ['steps', [1, 5]]]) {
    const msg = oneLine(() => buildBaseline([{ meta: meta('a'), samples: samples() }, { meta: meta('b', { [k]: v }), samples: samples() }]));
    assert.match(msg, /^b (has|ran)/, msg);
  }
  assert.match(oneLine(() => buildBaseline([{ meta: meta('a'), samples: { transactions: {}, apis: {} } }])), /no transaction_duration samples/);
  assert.match(oneLine(() => buildBaseline([])), /no run given/);
});

test('format 1 and broken files are refused by the verdict with the fix', () => {
  assert.match(oneLine(() => validateBaseline2({ format: 'folio-perf-baseline/1', workflow: 'cico', transactions: {} }, 'old.json')), /^old\.json: is format 1 .*fix: record a format-2 baseline from 2 or more runs/);
  assert.match(oneLine(() => validateBaseline2({ format: 'x' }, 'b.json')), /format is "x"/);
  assert.match(oneLine(() => validateBaseline2([], 'b.json')), /not a JSON object/);
  assert.match(oneLine(() => validateBaseline2({ format: BASELINE_FORMAT_2, workflow: 'cico', metrics: { m: { runs: [{ n: 5 }] } } }, 'b.json')), /without n, logQ and se/);
});

test('a slowed candidate is regressed on the slowed API and exits 99; a same-system candidate is not', () => {
  const b = buildBaseline([1, 2, 3].map((i) => ({ meta: meta(`r${i}`), samples: samples() })), { slowApis: [POST] });
  const slow = compareRun(b, samples({ factor: 1.5 }), { alpha: 0.01 });
  assert.deepEqual([...new Set(slow.map((r) => r.stat))], ['p(95)', 'p(50)']);
  const row = slow.find((r) => r.metric === apiKey(POST) && r.stat === 'p(95)');
  assert.equal(slow.find((r) => r.metric === apiKey(POST) && r.stat === 'p(50)').verdict, 'regressed');
  assert.equal(row.verdict, 'regressed');
  assert.ok(row.deltaPct > 30 && row.deltaPct < 70, `Δ ${row.deltaPct}`);
  assert.ok(row.interval[0] > 0 && row.interval[0] < row.deltaPct && row.interval[1] > row.deltaPct);
  assert.equal(exitCodeFor(slow), 99);
  assert.match(renderVerdictMarkdown(slow), /\| baseline \| http_req_duration\{name:POST \/circulation\/check-out-by-barcode\} \| p\(95\) \|.*\| regressed \|/);
  const same = compareRun(b, samples(), { alpha: 0.01 });
  assert.ok(same.every((r) => r.verdict !== 'regressed'), JSON.stringify(same.map((r) => [r.metric, r.verdict, r.interval])));
  assert.equal(exitCodeFor(same), 0);
});

test('one baseline run, or too few samples: inconclusive, saying what is missing, exit 0', () => {
  const one = buildBaseline([{ meta: meta('r1'), samples: samples() }], { slowApis: [POST] });
  const rows = compareRun(one, samples());
  assert.ok(rows.every((r) => r.verdict === 'inconclusive' && /baseline has 1 usable run, needs 2/.test(r.note)));
  assert.equal(exitCodeFor(rows), 0);
  const two = buildBaseline([1, 2].map((i) => ({ meta: meta(`r${i}`), samples: samples() })));
  const few = compareRun(two, samples({ n: 30 }));
  assert.ok(few.every((r) => r.verdict === 'inconclusive' && /30 samples, needs 100: run longer/.test(r.note)), JSON.stringify(few));
  const none = compareRun(two, { transactions: {}, apis: {} });
  assert.ok(none.every((r) => r.verdict === 'inconclusive' && /no samples/.test(r.note)));
});

test('several baseline files of one system are one baseline: their runs together', () => {
  const a = buildBaseline([1, 2].map((i) => ({ meta: meta(`a${i}`), samples: samples() })));
  const b = buildBaseline([1].map((i) => ({ meta: meta(`b${i}`), samples: samples() })));
  const m = mergeBaselines([a, b], ['a.json', 'b.json']);
  assert.equal(m.metrics[txKey('check-out')].runs.length, 3);
  assert.match(oneLine(() => mergeBaselines([a, { ...b, profile: 'demo' }], ['a.json', 'b.json'])), /^b\.json has profile "demo", a\.json has "smoke"/);
});

test('--control: a machine whose speed swings by ±40 % between runs hides +50 % in absolute p95; relative to check-in it is found, and A/A stays ok', () => {
  const machine = () => Math.exp(0.35 * normal());
  const run = (factor = 1) => {
    const m = machine();
    return {
      transactions: { 'check-out': draw(800, 40 * m, factor > 1 ? 1 + (factor - 1) / 3 : 1), 'check-in': draw(800, 25 * m) },
      apis: { [POST]: draw(800, 11 * m, factor) },
    };
  };
  let foundRel = 0;
  let foundAbs = 0;
  let falseRel = 0;
  const trials = 30;
  for (let i = 0; i < trials; i++) {
    const b = buildBaseline([1, 2, 3].map((j) => ({ meta: meta(`r${j}`), samples: run() })), { slowApis: [POST] });
    const slow = run(1.5);
    const rel = compareRun(b, slow, { alpha: 0.01, control: txKey('check-in') });
    const postP95 = (rows) => rows.find((r) => r.metric === apiKey(POST) && r.stat.startsWith('p(95)'));
    if (postP95(rel).verdict === 'regressed') foundRel++;
    if (postP95(compareRun(b, slow, { alpha: 0.01 })).verdict === 'regressed') foundAbs++;
    if (compareRun(b, run(), { alpha: 0.01, control: txKey('check-in') }).some((r) => r.verdict === 'regressed')) falseRel++;
    assert.ok(rel.every((r) => r.metric !== txKey('check-in') && /^p\((95|50)\) ÷ check-in p\(\1\)$/.test(r.stat)), JSON.stringify(rel.map((r) => r.stat)));
  }
  assert.ok(foundRel >= 0.9 * trials, `found relative to check-in in ${foundRel}/${trials}`);
  assert.ok(foundAbs <= 0.5 * trials, `found in absolute p95 in ${foundAbs}/${trials}`);
  assert.ok(falseRel <= 2, `false alarms relative to check-in: ${falseRel}/${trials}`);
  const b = buildBaseline([1, 2].map((j) => ({ meta: meta(`r${j}`), samples: run() })));
  assert.match(oneLine(() => compareRun(b, run(), { control: 'http_req_duration{name:GET /nothing}' })), /the control http_req_duration\{name:GET \/nothing\} is neither "speed" nor a metric of the baseline; fix: speed or one of /);
});

// A run on a machine of speed m: every metric scaled by m (the machine), the slowed ones by factor too.
const GETS = ['GET /users', 'GET /inventory/items', 'GET /circulation/loans', 'GET /service-points'];
function machineRun(m, { post = 1, all = 1, n = 800 } = {}) {
  const apis = { [POST]: draw(n, 11 * m * all, post) };
  for (const [i, g] of GETS.entries()) apis[g] = draw(n, (2 + i) * m * all);
  return { transactions: { 'check-out': draw(n, 40 * m * all, 1 + (post - 1) / 3), 'check-in': draw(n, 25 * m * all) }, apis };
}
const slowApis = [POST, ...GETS];
const baselineOf = (k, m = () => 1) => buildBaseline(Array.from({ length: k }, (_, j) => ({ meta: meta(`r${j}`), samples: machineRun(m()) })), { slowApis });

test('--control speed: the run\'s own speed (median change of the other metrics) cancels a machine swinging ±40 %: +50 % on one API found, A/A ok, no control metric needed', () => {
  const machine = () => Math.exp(0.35 * normal());
  let found = 0;
  let falseAlarms = 0;
  const trials = 30;
  for (let i = 0; i < trials; i++) {
    const b = baselineOf(3, machine);
    const rows = compareRun(b, machineRun(machine(), { post: 1.5 }), { alpha: 0.01, control: SPEED });
    if (rows.find((r) => r.metric === apiKey(POST) && r.stat === 'p(95) ÷ run speed').verdict === 'regressed') found++;
    if (compareRun(b, machineRun(machine()), { alpha: 0.01, control: SPEED }).some((r) => r.verdict === 'regressed')) falseAlarms++;
    // Every metric is judged (no control metric left out), plus the run speed row per quantile.
    assert.equal(rows.length, 2 * (Object.keys(b.metrics).length + 1));
  }
  assert.ok(found >= 0.9 * trials, `found in ${found}/${trials}`);
  assert.ok(falseAlarms <= 2, `false alarms ${falseAlarms}/${trials}`);
});

test('--control speed: a change that slows everything alike shows on the run speed row, judged with k - 1 degrees of freedom', () => {
  // A steady machine: 5 baseline runs, the candidate 1.5x slower in every metric.
  const steady = () => Math.exp(0.02 * normal());
  const b = baselineOf(5, steady);
  const rows = compareRun(b, machineRun(steady(), { all: 1.5 }), { alpha: 0.05, control: SPEED });
  const speedRow = rows.find((r) => r.metric.startsWith('run speed') && r.stat === 'p(95)');
  assert.equal(speedRow.verdict, 'regressed');
  assert.ok(speedRow.deltaPct > 40 && speedRow.deltaPct < 60, `Δ ${speedRow.deltaPct}`);
  assert.ok(rows.filter((r) => !r.metric.startsWith('run speed')).every((r) => r.verdict !== 'regressed'), 'relative to the run speed nothing else moved');
  // Two baseline runs: one degree of freedom, so even +50 % everywhere is not proof.
  const two = compareRun(baselineOf(2, steady), machineRun(steady(), { all: 1.5 }), { alpha: 0.05, control: SPEED });
  const wide = two.find((r) => r.metric.startsWith('run speed') && r.stat === 'p(95)');
  assert.equal(wide.verdict, 'ok');
  assert.ok(wide.interval[0] < 0 && wide.interval[1] > 100, JSON.stringify(wide.interval));
});

test('speedOf: the median change of the other metrics, leave-one-out; a few slowed metrics do not move it', () => {
  const runsByKey = {};
  const cand = {};
  for (let i = 0; i < 7; i++) {
    runsByKey[`m${i}`] = [{ testid: 'a', n: 500, logQ: i, se: 0.01 }, { testid: 'b', n: 500, logQ: i + 0.2, se: 0.01 }];
    cand[`m${i}`] = { n: 500, logQ: i + 0.1 + (i < 2 ? 0.5 : 0), se: 0.01 }; // m0, m1 slowed
  }
  const sp = speedOf(runsByKey, cand, 100);
  assert.ok(Math.abs(sp.candidate(null).logQ - 0.0) < 1e-12, 'the median ignores the two slowed metrics');
  assert.ok(Math.abs(sp.run('a', 'm3').logQ + 0.1) < 1e-12 && Math.abs(sp.run('b', 'm3').logQ - 0.1) < 1e-12);
  assert.equal(sp.run('a', 'm3').n, Number.MAX_SAFE_INTEGER, 'a control, not a sample count');
  assert.ok(sp.candidate('m0').se > 0 && sp.candidate('m0').se < 0.01);
  assert.equal(sp.candidateRun().n, 500);
  assert.equal(speedOf({ m: [{ testid: 'a', n: 5, logQ: 0, se: 1 }] }, { m: null }, 100).candidate(null).logQ, null, 'no usable metric: no speed');
  // Where leaving the metric out decides: three metrics, two slowed by +0.5 in the candidate.
  const r0 = (testid) => ({ testid, n: 500, logQ: 0, se: 0.01 });
  const three = { x: [r0('a'), r0('b')], y: [r0('a'), r0('b')], z: [r0('a'), r0('b')] };
  const c3 = speedOf(three, { x: { n: 500, logQ: 0.5, se: 0.01 }, y: { n: 500, logQ: 0.5, se: 0.01 }, z: { n: 500, logQ: 0, se: 0.01 } }, 100);
  assert.equal(c3.candidate(null).logQ, 0.5);
  assert.equal(c3.candidate('x').logQ, 0.25, 'x\'s control is the median of y and z only');
  assert.equal(c3.candidate('z').logQ, 0.5);
  // A metric with one usable baseline run (the other under minSamples) is no part of the speed.
  const short = { ...three, w: [r0('a'), { testid: 'b', n: 10, logQ: 0, se: 0.01 }] };
  assert.equal(speedOf(short, { x: { n: 500, logQ: 0.5, se: 0.01 }, y: { n: 500, logQ: 0.5, se: 0.01 }, z: { n: 500, logQ: 0, se: 0.01 }, w: { n: 500, logQ: 0, se: 0.01 } }, 100).candidate(null).logQ, 0.5);
});

test('absolute quantiles on a drifting machine: the shared shift gets k - 1 degrees of freedom, and A/A holds its false-alarm rate', () => {
  // The degrees of freedom by hand: every metric shifted alike in each run (a pure machine shift).
  const shift = [0, 0.2, -0.1];
  const byKey = Object.fromEntries(['a', 'b', 'c', 'd'].map((key) => [key, shift.map((x, i) => ({ testid: `r${i}`, n: 500, logQ: x, se: 0.001 }))]));
  const adj = withSharedShock({ tau2: 0.023, df: 8, metrics: 4 }, byKey, 100);
  assert.ok(Math.abs(adj.df - 2) < 0.05, `all of it shared: k - 1 = 2, got ${adj.df}`);
  assert.equal(withSharedShock({ tau2: null, df: 0 }, byKey, 100).tau2, null);
  // Half shared (the speeds' variance 0.02333 of tau2 0.04667): Welch-Satterthwaite over the two parts.
  const half = withSharedShock({ tau2: 0.046667, df: 8, metrics: 4 }, byKey, 100);
  const shared = 0.023333 - (1.2533 * 0.001) ** 2 / 4; // less the speeds' own sampling error
  const own = 0.046667 - shared;
  const want = 0.046667 ** 2 / (shared ** 2 / 2 + own ** 2 / 8);
  assert.ok(Math.abs(half.df - want) < 0.01 && half.df > 6 && half.df < 7, `df ${half.df}, want ${want}`);
  // A/A over seeds: a machine moving ±20 % between runs, k = 2 baseline runs (pooled over 7 metrics
  // the spread would claim 7 degrees of freedom; its shared part has 1).
  const machine = () => Math.exp(0.2 * normal());
  let alarms = 0;
  const trials = 300;
  for (let i = 0; i < trials; i++) {
    const b = baselineOf(2, machine);
    if (compareRun(b, machineRun(machine()), { alpha: 0.05, minDeltaMs: 0 }).some((r) => r.verdict === 'regressed')) alarms++;
  }
  // Measured (this seed): 15/300 = 5 %; with the pooled 7 degrees of freedom it was 24/300 = 8 %.
  assert.ok(alarms / trials <= 0.07, `false alarms ${alarms}/${trials}`);
});
