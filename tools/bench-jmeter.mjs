// `make bench-jmeter`: the comparison users make. PTF's own Orchid CICO plan, run by Apache JMeter
// 5.6.3 through the JMeter harness (tools/jmeter/), against folio-perf's CICO script run by k6, on
// the same workload: BENCH_JMETER_USERS users (8, PTF's usual count), no think time (JMeter:
// -Jtimer.factor=0; k6: THINK=none), PTF's 43-57 distribution, the browser's CORS preflights (the
// plan sends them; k6: PREFLIGHT=true), the same tenant, patrons and items (tools/jmeter/
// ptf-cico-data.mjs), minifolio `fast`, results written as each writes them (JMeter: its JTL file;
// k6: InfluxDB through influxdb-lp). BENCH_ROUNDS rounds (3), JMeter then k6 in each, the tenant
// reset before every run.
// Each figure is the steady state: CPU time (user + system, from /proc) and transactions counted
// over the same window of each run, BENCH_WARM s (30) after its first transaction, for
// BENCH_WINDOW s (45): the JVM's start and JIT warm-up, k6's VU initialisation, set-up and teardown
// are left out. Memory: the peak RSS at the window's end. Beside them, k6's floor at the k6 run's
// request rate (the bare request, same VUs and output). The k6/JMeter ratio of CPU per
// transaction is taken round by round and printed as min / median / max. Target: <= 0.3.
// A benchmark, not a test: the figures depend on the machine and its load.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureK6 } from './bench/k6-run.mjs';
import { sampler, windowOf, spread, minifolioDb, localDbPassword } from './bench/measure.mjs';
import { startBenchMinifolio } from './bench/minifolio.mjs';
import { runPlan } from './jmeter/harness.mjs';
import { parseJtl, summarize } from './jmeter/plan.mjs';
import { writePtfCicoData, removeCredentials } from './jmeter/ptf-cico-data.mjs';
import { setting } from './defaults.mjs';
import { makeTestId } from '../lib/testid.js';

const repo = join(import.meta.dirname, '..');
const e = process.env;
function die(msg) {
  console.error(`bench-jmeter: ${msg}`);
  process.exit(1);
}
const USERS = Number(e.BENCH_JMETER_USERS || 8);
const WARM = Number(e.BENCH_WARM || 30);
const WINDOW = Number(e.BENCH_WINDOW || 45);
const ROUNDS = Number(e.BENCH_ROUNDS || 3);
const seconds = WARM + WINDOW + 30;
const apiPort = setting('FP_K6_API_PORT');
const testid = makeTestId('bench-jmeter');
const out = join(repo, 'results', testid);
mkdirSync(out, { recursive: true });
const plan = join(repo, 'tools', 'jmeter', 'ptf', 'check-in-check-out', 'circulation_checkInCheckOut_orchid.jmx');

const operator = setting('FP_USER');
const { port, tenant, password, mf } = startBenchMinifolio(repo, die);
mf(['reset', '--tenant', tenant]);
const data = join(out, 'data');
const counts = writePtfCicoData({ dir: data, dsn: minifolioDb(), tenant, operator, password });

async function jmeter(round) {
  const dir = join(out, `jmeter-${round}`);
  let s = null;
  const r = await runPlan({
    plan, target: `http://127.0.0.1:${port}`, out: dir, data, quiet: true,
    props: Object.entries({ HOSTNAME: '127.0.0.1', VUSERS: USERS, RAMP_UP: 1, DURATION: seconds, 'timer.factor': 0 }).map(([name, value]) => ({ name, value: String(value) })),
    onStart: (pid) => (s = sampler(pid)),
  });
  s.stop();
  await s.done;
  if (r.refused.length) die(`round ${round}: JMeter sent requests off the target (${r.refused[0]})`);
  const rows = parseJtl(readFileSync(r.jtl, 'utf8'));
  const first = Math.min(...rows.filter((x) => r.transactions.includes(x.label)).map((x) => x.time + x.elapsed));
  if (!Number.isFinite(first)) die(`round ${round}: JMeter recorded no transaction (exit ${r.code}); fix: read ${r.log}`);
  const w = windowOf(s.series, first + WARM * 1000, first + (WARM + WINDOW) * 1000);
  const sum = summarize(rows, r.transactions, { from: w.from, to: w.to });
  const tx = sum.transactions.reduce((a, t) => a + t.count, 0);
  const failed = sum.transactions.reduce((a, t) => a + t.failed, 0);
  return { ...w, tx, failed, requests: sum.requests, msPerTx: (w.cpuS / tx) * 1e3, txPerS: tx / w.seconds };
}

async function k6(round) {
  const r = await measureK6({
    repo, script: 'scripts/check-in-check-out.js', apiPort, warmS: WARM, windowS: WINDOW, log: join(out, `k6-${round}.log`),
    args: ['-o', `influxdb-lp=http://127.0.0.1:${setting('FP_INFLUX_PORT')}/k6`],
    env: {
      FOLIO_ENV: 'local', TESTID: `${testid}-${round}`, RELEASE: 'fast', FOLIO_TENANT: tenant, PROFILE: 'smoke', VUS: String(USERS), DURATION: `${seconds}s`,
      THINK: 'none', PREFLIGHT: 'true', FOLIO_URL: `http://127.0.0.1:${port}`, FOLIO_DB_PORT: setting('FP_PG_PORT'), FOLIO_DB_PASSWORD: localDbPassword(),
      FOLIO_PASSWORD: password,
    },
  });
  if (!r.window) die(`round ${round}: the k6 run (exit ${r.code}) ended before its window; fix: read ${join(out, `k6-${round}.log`)}`);
  const w = r.window;
  return { ...w, tx: w.iterations, requests: w.reqs, msPerTx: w.msPerIteration, txPerS: w.iterations / w.seconds };
}

// k6's floor on the same rate: the k6 run's VUs sending its request rate of the cheapest request
// (minifolio/bench-floor.js, as make bench-k6 runs it) through the same output. Times the k6 run's
// requests per transaction, it is what any k6 script doing this workload costs at least.
async function floor(round, rate) {
  const r = await measureK6({
    repo, script: 'minifolio/bench-floor.js', apiPort, warmS: WARM, windowS: WINDOW, log: join(out, `floor-${round}.log`),
    args: ['-o', `influxdb-lp=http://127.0.0.1:${setting('FP_INFLUX_PORT')}/k6`, '--tag', `testid=${testid}-floor-${round}`],
    env: {
      FOLIO_URL: `http://127.0.0.1:${port}`, FOLIO_TENANT: tenant, FOLIO_TOKEN: '', FLOOR_PATH: '/admin/health', FLOOR_RATE: rate.toFixed(0),
      FLOOR_VUS: String(USERS), FLOOR_DURATION: `${seconds}s`, FLOOR_OUT: join(out, `floor-${round}.json`),
    },
  });
  if (!r.window) die(`round ${round}: the floor run (exit ${r.code}) ended before its window; fix: read ${join(out, `floor-${round}.log`)}`);
  return r.window;
}

console.log(`==> bench-jmeter: ${ROUNDS} rounds of PTF's CICO plan (JMeter 5.6.3) and the k6 script, ${USERS} users, no think time, preflights, minifolio fast; window ${WARM}+${WINDOW} s; testid ${testid}`);
console.log(`    data: ${counts.available} items, ${counts.users} patrons of tenant ${tenant}`);
const rounds = [];
try {
  for (let i = 1; i <= ROUNDS; i++) {
    mf(['reset', '--tenant', tenant]);
    const j = await jmeter(i);
    mf(['reset', '--tenant', tenant]);
    const k = await k6(i);
    const fl = await floor(i, k.reqPerS);
    // The floor's CPU per transaction: its CPU per request times the k6 run's requests per transaction.
    const floorMsPerTx = (fl.usPerReq * (k.requests / k.tx)) / 1e3;
    rounds.push({ jmeter: j, k6: k, floor: { ...fl, msPerTx: floorMsPerTx } });
    const f = (x) => `${x.msPerTx.toFixed(2)} ms CPU per transaction (${x.txPerS.toFixed(1)} tx/s, ${(x.requests / x.tx).toFixed(1)} requests each), peak RSS ${(x.peakKiB / 1024).toFixed(0)} MB`;
    console.log(`round ${i}: JMeter ${f(j)}${j.failed ? `, ${j.failed} failed` : ''}; k6 ${f(k)}; k6's floor ${floorMsPerTx.toFixed(2)} ms (${fl.usPerReq.toFixed(0)} us per request at ${fl.reqPerS.toFixed(0)} req/s)`);
  }
} finally {
  removeCredentials(data);
}
const s = (fn) => spread(rounds.map(fn));
const fmt = (x, d = 2) => `${x.min.toFixed(d)} / ${x.median.toFixed(d)} / ${x.max.toFixed(d)}`;
const ratio = s((r) => r.k6.msPerTx / r.jmeter.msPerTx);
console.log('\nmin / median / max over the rounds:');
console.log(`  JMeter: ${fmt(s((r) => r.jmeter.msPerTx))} ms CPU per transaction, peak RSS ${fmt(s((r) => r.jmeter.peakKiB / 1024), 0)} MB`);
console.log(`  k6:     ${fmt(s((r) => r.k6.msPerTx))} ms CPU per transaction, peak RSS ${fmt(s((r) => r.k6.peakKiB / 1024), 0)} MB`);
console.log(`  k6's floor: ${fmt(s((r) => r.floor.msPerTx))} ms CPU per transaction (the bare request at the k6 run's rate, same output)`);
console.log(`  CPU per transaction, k6 / JMeter: ${fmt(ratio)} (target <= 0.3: ${ratio.median <= 0.3 ? 'met' : 'not met'}); k6's floor / JMeter: ${fmt(s((r) => r.floor.msPerTx / r.jmeter.msPerTx))}`);
writeFileSync(join(out, 'bench-jmeter.json'), JSON.stringify({ testid, users: USERS, warmS: WARM, windowS: WINDOW, rounds }, null, 1));
console.log(`figures: results/${testid}/bench-jmeter.json`);
