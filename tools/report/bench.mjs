// `make bench-report`: how long `folio-perf report` takes on a 20-user CICO run's worth of samples
// (BENCH_REPORT_MINUTES, 30; 1440 for PTF's 24-hour longevity run). Writes a synthetic run (testid
// bench-report-<n>) into InfluxDB: BENCH_REPORT_TPS transactions/s (1 ≈ 20 users with the think time
// PTF's plans meant, THINK=ptf-intended; about 3 with the pauses PTF's JMeter really made, THINK=ptf;
// 50 = no think time on minifolio fast), each with what a real run writes (lib/metrics.js
// STORED_METRICS, counted on a smoke run): 16 requests, each an http_req_duration, http_reqs and
// http_req_failed point and 2.8 checks on average, the transaction's duration and failure, the vus
// gauge every second; and module_stats for 12 processes every 10 s (in 2001); a summary.json in
// results/; then times the report (and, as the floor, its InfluxDB queries alone, right after) and
// removes what it wrote. The target: <= 10 s.
import { mkdirSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { influxWrite } from '../../dashboards/src/influx-query.mjs';
import { writeReport } from './report.mjs';
import { gather } from './gather.mjs';
import { influxClient } from './influx.mjs';
import { tools } from '../workflows.mjs';
import { METRICS, FIELDS } from '../../lib/metrics.js';

const url = process.env.FP_INFLUX_URL;
if (!url) {
  console.error('bench-report: FP_INFLUX_URL is not set. Fix: source tools/test-env.sh (or make stack-up) and export FP_INFLUX_URL');
  process.exit(1);
}
const tps = Number(process.env.BENCH_REPORT_TPS || 1);
const minutes = Number(process.env.BENCH_REPORT_MINUTES || 30);
const testid = `bench-report-${Date.now()}`;
// In 2001, far from any real run: module_stats has no testid, so synthetic points inside a real
// run's window would change that run's module figures.
const t0 = Date.UTC(2001, 0, 1);
const end = t0 + minutes * 60 * 1000;
// A check-out's calls (the Orchid plan's, as lib/cico/transactions.js sends them) and how many checks each makes.
const names = ['GET /users', 'GET /groups', 'GET /proxiesfor', 'GET /manualblocks', 'GET /automated-patron-blocks/{id}', 'GET /accounts',
  'GET /note-links/domain/users/type/user/id/{id}', 'GET /circulation/requests', 'GET /configurations/entries', 'GET /inventory/items',
  'GET /circulation/loans', 'POST /circulation/check-out-by-barcode', 'GET /service-points', 'GET /lost-item-fees-policies',
  'GET /staff-slips-storage/staff-slips', 'POST /circulation/check-in-by-barcode'];
const checksPer = [3, 3, 3, 2, 3]; // 2.8 checks a request, as counted on a smoke run
const modules = ['okapi', 'mod-users', 'mod-inventory', 'mod-inventory-storage', 'mod-circulation', 'mod-circulation-storage', 'mod-patron-blocks', 'mod-feesfines', 'mod-configuration', 'mod-notes', 'postgres', 'influxdb'];
const run = `testid=${testid},workflow=cico,release=bench,target=local,vus=20`;

let lines = [];
let points = 0;
const flush = async (force) => {
  if (lines.length >= 20000 || (force && lines.length)) {
    await influxWrite(url, 'k6', lines);
    points += lines.length;
    lines = [];
  }
};
let seed = 1;
const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
const w0 = performance.now();
for (let t = t0; t < end; t += 1000 / tps) {
  const ns = BigInt(Math.round(t)) * 1000000n;
  const tx = rand() < 0.57 ? 'check-out' : 'check-in';
  let sum = 0;
  names.forEach((n, i) => {
    const d = 5 + rand() * 40;
    sum += d;
    const esc = n.replace(/ /g, '\\ ').replace(/,/g, '\\,');
    const tag = `name=${esc},status=200,expected_response=true`;
    const at = ns + BigInt(i);
    lines.push(`${METRICS.httpReqs},${run},${tag} value=1 ${at}`, `${METRICS.httpDuration},${run},${tag} value=${d.toFixed(3)} ${at}`,
      `${METRICS.httpFailed},${run},${tag} value=0 ${at}`);
    for (let c = 0; c < checksPer[i % checksPer.length]; c++) lines.push(`${METRICS.checks},${run},check=${esc}:\\ rule\\ ${c} value=1 ${at}`);
  });
  lines.push(`${METRICS.transactionDuration},${run},transaction=${tx} value=${sum.toFixed(3)} ${ns}`,
    `${METRICS.transactionFailed},${run},transaction=${tx} value=0 ${ns}`);
  if (Math.floor(t / 1000) !== Math.floor((t - 1000 / tps) / 1000)) lines.push(`${METRICS.vus},${run} value=20 ${ns}`);
  await flush(false);
}
for (let t = t0; t < end; t += 10000) {
  const ns = BigInt(t) * 1000000n;
  for (const [i, m] of modules.entries()) lines.push(`${METRICS.moduleStats},module=${m} ${FIELDS.cpuPercent}=${(5 + rand() * 20).toFixed(2)},${FIELDS.memRss}=${Math.round((100 + i * 10) * 1048576 + (t - t0) * 10)} ${ns}`);
  await flush(false);
}
await flush(true);
const written = (performance.now() - w0) / 1000;

const dir = join('results', testid);
mkdirSync(dir, { recursive: true });
const stat = { avg: 0.2, p50: 0.18, p75: 0.25, p95: 0.4, count: Math.round(tps * minutes * 30) };
writeFileSync(join(dir, 'summary.json'), JSON.stringify({
  format: 'folio-perf-summary/1',
  meta: { testid, workflow: 'cico', release: 'bench', target: 'local', profile: 'bench', steps: [20], stepDuration: `${minutes * 60}s`, startedAt: new Date(t0).toISOString(), finishedAt: new Date(end).toISOString() },
  tables: { responseTimes: [{ vus: 20, 'check-in': stat, 'check-out': stat }], slowApis: [] },
  k6: { metrics: {} },
}));
const r0 = performance.now();
await writeReport(testid, { influxUrl: url });
const took = (performance.now() - r0) / 1000;
// The floor, measured in the same run right after: InfluxDB answering the report's queries alone
// (gather(), its caches now warm), which a shared machine's load slows as much as the report.
const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
const f0 = performance.now();
await gather(influxClient(url), summary, await tools('cico'), { dir });
const floor = (performance.now() - f0) / 1000;
console.log(`bench-report: ${points} points (${tps} transactions/s x ${minutes} min, 20 users, ${names.length} requests a transaction) written in ${written.toFixed(1)} s; report in ${took.toFixed(2)} s (target <= 10 s); its InfluxDB queries alone, right after: ${floor.toFixed(2)} s -> ${dir}/report.html`);
if (process.env.BENCH_REPORT_KEEP !== '1') {
  rmSync(dir, { recursive: true, force: true });
  for (const q of [`DROP SERIES WHERE "testid" = '${testid}'`, `DELETE FROM "${METRICS.moduleStats}" WHERE time >= ${t0}ms AND time <= ${end}ms`]) {
    await fetch(`${url}/query?db=k6&q=${encodeURIComponent(q)}`, { method: 'POST' });
  }
}
process.exit(took <= 10 ? 0 : 2);
