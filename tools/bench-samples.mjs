// `make bench-samples`: what a long run costs InfluxDB. Short runs of the `ptf` and `longevity`
// CICO profiles (PTF's think times) and of the search workflow at 20 users (no think time, as PTF's
// mod-search tests), on minifolio fast, each
// into a throwaway InfluxDB 1.x of its own, measured as points written per second of load and bytes
// on disk per point once InfluxDB has compacted them; then extrapolated to the profile's real
// length (ptf: 4 steps x 30 min; longevity: 24 h; search: 1 h), and said to be an extrapolation.
// The same longevity run with K6_INFLUXDB_METRICS='*' (every k6 metric, the old default) is the
// floor the allow-list is measured against. Writes results/bench-samples-<time>/bench-samples.md.
// Settings: BENCH_SAMPLES_SECONDS (load seconds per step, default 60).
// A benchmark, not a test: the figures depend on the machine and its load.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setting } from './defaults.mjs';
import { testidStamp } from '../lib/testid.js';
import { extrapolate, renderSamplesTable } from './bench-samples-stats.mjs';

const REPO = join(import.meta.dirname, '..');
const seconds = Number(process.env.BENCH_SAMPLES_SECONDS || 60);
const influxPort = Number(setting('FP_INFLUX_PORT')) + 80;
const stackDir = process.env.FP_STACK_DIR || join(REPO, '.stack');
const stamp = testidStamp();
const out = join(REPO, 'results', `bench-samples-${stamp}`);
mkdirSync(out, { recursive: true });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The cases: a name, the run's settings, how many load seconds the short run has, and how long
// the real run is (its steps' seconds, for the extrapolation).
const CASES = [
  { name: 'ptf (CICO, 1/5/8/20 users)', vars: { PROFILE: 'ptf', DURATION: `${seconds}s` }, steps: [1, 5, 8, 20], realStepSeconds: 1800 },
  { name: 'longevity (CICO, 20 users)', vars: { PROFILE: 'longevity', DURATION: `${seconds}s` }, steps: [20], realStepSeconds: 86400 },
  { name: 'search, 20 users', vars: { WORKFLOW: 'search', PROFILE: 'smoke', VUS: '20', DURATION: `${seconds}s` }, steps: [20], realStepSeconds: 3600 },
  { name: 'longevity, every k6 metric', vars: { PROFILE: 'longevity', DURATION: `${seconds}s`, K6_INFLUXDB_METRICS: '*' }, steps: [20], realStepSeconds: 86400, floor: true },
];

function sh(cmd, args, env) {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    c.stdout.on('data', (d) => (text += d));
    c.stderr.on('data', (d) => (text += d));
    c.on('close', (code) => resolve({ code, text }));
  });
}

// Bytes on disk under dir (allocated blocks: InfluxDB preallocates some files); InfluxDB removes
// WAL segments and replaces TSM files as it compacts, so what vanishes meanwhile counts 0.
const du = (dir) => {
  let n = 0;
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const f of names) {
    try {
      const st = statSync(join(dir, f));
      n += st.isDirectory() ? du(join(dir, f)) : st.blocks * 512;
    } catch {
      // gone meanwhile
    }
  }
  return n;
};

// A throwaway InfluxDB whose cache is written to compacted TSM files seconds after the writes stop
// (1.x's defaults wait 10 minutes and 4 hours), so the bytes on disk are what a long run's bulk
// becomes.
async function influxd() {
  if (await fetch(`http://127.0.0.1:${influxPort}/ping`).then((r) => r.ok, () => false)) {
    throw new Error(`something answers on 127.0.0.1:${influxPort} already; fix: stop it (a bench-samples InfluxDB left behind?) or set FP_INFLUX_PORT`);
  }
  const dir = mkdtempSync(join(stackDir, 'bench-samples-influx-'));
  writeFileSync(join(dir, 'influxdb.conf'), [
    'reporting-disabled = true',
    `bind-address = "127.0.0.1:${influxPort + 1}"`,
    `[meta]\n  dir = "${dir}/meta"`,
    `[data]\n  dir = "${dir}/data"\n  wal-dir = "${dir}/wal"\n  query-log-enabled = false\n  cache-snapshot-write-cold-duration = "2s"\n  compact-full-write-cold-duration = "5s"`,
    `[http]\n  bind-address = "127.0.0.1:${influxPort}"\n  log-enabled = false`,
    '[monitor]\n  store-enabled = false',
    '[logging]\n  level = "warn"',
  ].join('\n') + '\n');
  const p = spawn(process.env.FP_INFLUXD || 'influxd', ['-config', join(dir, 'influxdb.conf')], { stdio: 'ignore' });
  for (let i = 0; i < 150 && !(await fetch(`http://127.0.0.1:${influxPort}/ping`).then((r) => r.ok, () => false)); i++) await sleep(200);
  return {
    dir,
    // Bytes of database k6's shards once InfluxDB has compacted what it got (its series index, a few
    // preallocated MB per database whatever the run, left out): waits until the WAL is empty and the
    // TSM files stop changing (at most 2 minutes).
    async settledBytes() {
      let last = -1;
      for (let i = 0; i < 60; i++) {
        await sleep(2000);
        const wal = du(join(dir, 'wal', 'k6'));
        const tsm = du(join(dir, 'data', 'k6', 'autogen'));
        if (wal === 0 && tsm === last && tsm > 0) return tsm;
        last = tsm;
      }
      return du(join(dir, 'data', 'k6', 'autogen')) + du(join(dir, 'wal', 'k6'));
    },
    stop() {
      p.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const rows = [];
for (const c of CASES) {
  const db = await influxd();
  process.once('exit', () => db.stop()); // an error below must not leave it running
  const testid = `bench-samples-${rows.length + 1}-${stamp}`;
  console.log(`==> bench-samples: ${c.name}, ${c.steps.length} step(s) x ${seconds} s (testid ${testid})`);
  const r = await sh(join(REPO, 'tools', 'run.sh'), [], { MINIFOLIO_PROFILE: 'fast', TESTID: testid, FP_INFLUX_PORT: String(influxPort), PROGRESS_EVERY: '60', ...c.vars });
  writeFileSync(join(out, `${testid}.log`), r.text);
  let loss = null;
  try {
    loss = JSON.parse(readFileSync(join(REPO, 'results', testid, 'sample-loss.json'), 'utf8'));
  } catch {
    // the run failed before the output stopped: said below
  }
  const bytes = await db.settledBytes();
  // Points per user count (every sample of a step carries its vus tag).
  const perStep = {};
  const q = `SELECT count("value") FROM /.*/ WHERE "testid" = '${testid}' GROUP BY "vus"`;
  const res = await fetch(`http://127.0.0.1:${influxPort}/query?${new URLSearchParams({ db: 'k6', q })}`).then((x) => x.json(), () => null);
  for (const s of res?.results?.[0]?.series || []) perStep[s.tags.vus] = (perStep[s.tags.vus] || 0) + s.values[0][1];
  db.stop();
  if ((r.code !== 0 && r.code !== 99) || !loss) {
    console.log(`    the run failed (exit ${r.code}; log: ${join(out, `${testid}.log`)})`);
    process.exitCode = 1;
    continue;
  }
  rows.push({ ...c, ...extrapolate({ written: loss.written, unselected: loss.unselected || 0, bytes, loadSeconds: seconds * c.steps.length, steps: c.steps, realStepSeconds: c.realStepSeconds, perStep }) });
}
const text = renderSamplesTable(rows, { seconds, date: new Date().toISOString().slice(0, 10) });
writeFileSync(join(out, 'bench-samples.md'), text);
console.log(`\n${text}\n==> bench-samples: ${join(out, 'bench-samples.md')}`);
