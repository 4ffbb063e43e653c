// `make bench-k6`: what k6 itself costs with folio-perf's CICO scripts, beside k6's floor measured
// in the same rounds. Each round (BENCH_ROUNDS, default 3) runs, one after the other:
//   1. the CICO script: BENCH_VUS VUs (200) without think time against minifolio `fast`, samples
//      to InfluxDB through the influxdb-lp output, as every run;
//   2. the paced floor: the same VUs sending the cheapest request there is (GET /admin/health,
//      answered by the gateway itself; minifolio/bench-floor.js) with no check and no custom
//      metric, through the same output, paced to the CICO run's request rate: k6's per-request
//      cost and its memory both depend on the rate (fixed per-second work, garbage between two
//      collections), so this is the floor the CICO figures are compared with;
//   3. the paced floor with the CICO script's modules evaluated in every VU
//      (minifolio/bench-floor-modules.js): what the code alone holds per VU before any transaction,
//      the part of the CICO memory that only dropping code from the VUs could remove;
//   4. the unpaced floor: the same as 2, as fast as it goes (k6's cheapest request at full speed).
// Every figure is the steady state: CPU time (user + system, from /proc) and requests counted over
// the same window of each run, BENCH_WARM s (20) after its first iteration, for BENCH_WINDOW s
// (30), so k6's start, set-up and teardown are left out; memory is the peak RSS at the window's
// end, per VU. The CICO/floor ratios are taken round by round (the machine's speed drifts) and
// printed as min / median / max. Targets: <= 2x the paced floor per request and per VU.
// A benchmark, not a test: the figures depend on the machine and its load.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureK6 } from './bench/k6-run.mjs';
import { spread, localDbPassword } from './bench/measure.mjs';
import { startBenchMinifolio } from './bench/minifolio.mjs';
import { setting } from './defaults.mjs';
import { makeTestId } from '../lib/testid.js';

const repo = join(import.meta.dirname, '..');
const e = process.env;
function die(msg) {
  console.error(`bench-k6: ${msg}`);
  process.exit(1);
}
const VUS = Number(e.BENCH_VUS || 200);
const WARM = Number(e.BENCH_WARM || 20);
const WINDOW = Number(e.BENCH_WINDOW || 30);
const ROUNDS = Number(e.BENCH_ROUNDS || 3);
// Room after the window: under load a 200-VU run's first transaction ends 10-20 s after the start.
const duration = `${WARM + WINDOW + 30}s`;
const influx = `influxdb-lp=http://127.0.0.1:${setting('FP_INFLUX_PORT')}/k6`;
const apiPort = setting('FP_K6_API_PORT');
const testid = makeTestId('bench-k6');
const out = join(repo, 'results', testid);
mkdirSync(out, { recursive: true });

const { port, tenant, password, mf } = startBenchMinifolio(repo, die);

const cicoEnv = (id) => ({
  FOLIO_ENV: 'local', TESTID: id, RELEASE: 'fast', FOLIO_TENANT: tenant, PROFILE: 'smoke', VUS: String(VUS), DURATION: duration,
  THINK: 'none', FOLIO_URL: `http://127.0.0.1:${port}`, FOLIO_DB_PORT: setting('FP_PG_PORT'), FOLIO_DB_PASSWORD: localDbPassword(), FOLIO_PASSWORD: password,
});
const cico = (round) =>
  measureK6({
    repo, script: 'scripts/check-in-check-out.js', apiPort, warmS: WARM, windowS: WINDOW, log: join(out, `cico-${round}.log`), args: ['-o', influx],
    env: cicoEnv(`${testid}-${round}`),
  });
const floor = (round, label, rate, script = 'minifolio/bench-floor.js', scriptEnv = {}) =>
  measureK6({
    repo, script, apiPort, warmS: WARM, windowS: WINDOW, log: join(out, `floor-${label}-${round}.log`),
    args: ['-o', influx, '--tag', `testid=${testid}-floor-${label}-${round}`],
    env: {
      ...scriptEnv,
      FOLIO_URL: `http://127.0.0.1:${port}`, FOLIO_TENANT: tenant, FOLIO_TOKEN: '', FLOOR_PATH: '/admin/health', FLOOR_RATE: String(rate),
      FLOOR_VUS: String(VUS), FLOOR_DURATION: duration, FLOOR_OUT: join(out, `floor-${label}-${round}.json`),
    },
  });

console.log(`==> bench-k6: ${ROUNDS} rounds of CICO (${VUS} VUs, no think time, minifolio fast), its paced floor and the unpaced floor; window ${WARM}+${WINDOW} s; testid ${testid}`);
const rounds = [];
for (let i = 1; i <= ROUNDS; i++) {
  mf(['reset', '--tenant', tenant]);
  const c = await cico(i);
  if (!c.window) die(`round ${i}: the CICO run (exit ${c.code}) ended before its window; fix: read ${join(out, `cico-${i}.log`)}`);
  const p = await floor(i, 'paced', c.window.reqPerS.toFixed(0));
  // The paced floor with the CICO script's modules evaluated in every VU (its environment, so
  // that its init reads what the CICO run's did; the floor's own settings win).
  const d = await floor(i, 'modules', c.window.reqPerS.toFixed(0), 'minifolio/bench-floor-modules.js', cicoEnv(`${testid}-floor-modules-${i}`));
  const m = await floor(i, 'max', 0);
  if (!p.window || !d.window || !m.window) die(`round ${i}: a floor run ended before its window; fix: read ${out}/floor-*-${i}.log`);
  const r = { cico: c.window, paced: p.window, modules: d.window, max: m.window };
  rounds.push(r);
  const f = (w) => `${w.usPerReq.toFixed(0)} us/req at ${w.reqPerS.toFixed(0)} req/s, ${(w.peakKiB / 1024 / VUS).toFixed(2)} MB/VU`;
  console.log(`round ${i}: CICO ${f(c.window)} (${c.window.msPerIteration.toFixed(2)} ms CPU per transaction); paced floor ${f(p.window)}; with the modules ${f(d.window)}; unpaced floor ${f(m.window)}`);
}

const s = (fn) => spread(rounds.map(fn));
const fmt = (x, d = 0) => `${x.min.toFixed(d)} / ${x.median.toFixed(d)} / ${x.max.toFixed(d)}`;
const mbPerVu = (w) => w.peakKiB / 1024 / VUS;
const cpuRatio = s((r) => r.cico.usPerReq / r.paced.usPerReq);
const memRatio = s((r) => mbPerVu(r.cico) / mbPerVu(r.paced));
const modulesRatio = s((r) => mbPerVu(r.modules) / mbPerVu(r.paced));
console.log('\nmin / median / max over the rounds:');
console.log(`  CICO: ${fmt(s((r) => r.cico.usPerReq))} us CPU per request, ${fmt(s((r) => r.cico.msPerIteration), 2)} ms per transaction, ${fmt(s((r) => r.cico.reqPerS))} req/s`);
console.log(`  paced floor (same VUs, rate and output): ${fmt(s((r) => r.paced.usPerReq))} us per request`);
console.log(`  unpaced floor (same VUs and output): ${fmt(s((r) => r.max.usPerReq))} us per request at ${fmt(s((r) => r.max.reqPerS))} req/s`);
console.log(`  CPU per request, CICO / paced floor: ${fmt(cpuRatio, 2)} (target <= 2: ${cpuRatio.median <= 2 ? 'met' : 'not met'})`);
console.log(`  peak RSS per VU: CICO ${fmt(s((r) => mbPerVu(r.cico)), 2)} MB, paced floor ${fmt(s((r) => mbPerVu(r.paced)), 2)} MB, unpaced floor ${fmt(s((r) => mbPerVu(r.max)), 2)} MB`);
console.log(`  memory per VU, CICO / paced floor: ${fmt(memRatio, 2)} (target <= 2: ${memRatio.median <= 2 ? 'met' : 'not met'})`);
console.log(`  the paced floor with the CICO modules loaded: ${fmt(s((r) => mbPerVu(r.modules)), 2)} MB per VU, ${fmt(modulesRatio, 2)} x the paced floor: what the code alone holds per VU, before any transaction`);
writeFileSync(join(out, 'bench-k6.json'), JSON.stringify({ testid, vus: VUS, warmS: WARM, windowS: WINDOW, rounds }, null, 1));
console.log(`figures: results/${testid}/bench-k6.json`);
