// Samples survive an InfluxDB stall, and a run whose samples did not all reach
// InfluxDB says so and fails (SAMPLE_LOSS). Each run pauses the test stack's
// own InfluxDB (SIGSTOP through its pid file, SIGCONT after) during a short
// CICO run through folio-perf run, then compares k6's own counts with InfluxDB's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, env, influxQuery, repo, sql, childEnv, runAsync } from './helpers.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function influxPid() {
  const pid = Number(readFileSync(join(env('FP_STACK_DIR'), 'run', 'influxdb.pid'), 'utf8').trim());
  assert.ok(pid > 0, 'the stack has an InfluxDB pid file');
  assert.match(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), /influxd/, 'the pid file names a live influxd');
  return pid;
}

// pausedRun runs folio-perf run and pauses InfluxDB from pauseAt for pauseMs.
async function pausedRun(name, vars, { pauseAt, pauseMs }) {
  const testid = `e2e-loss-${name}-${Date.now()}`;
  const child = spawn(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    cwd: repo,
    env: childEnv({ PROFILE: 'smoke', DURATION: '40s', MINIFOLIO_PROFILE: 'fast', TESTID: testid, ...vars }),
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const done = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  const killer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  const pid = influxPid();
  // The load starts after minifolio's restart and reset: wait for k6.
  const t0 = Date.now();
  while (!out.includes('==> k6:') && Date.now() - t0 < 90_000) await sleep(200);
  await sleep(pauseAt);
  process.kill(pid, 'SIGSTOP');
  try {
    await sleep(pauseMs);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  const status = await done;
  clearTimeout(killer);
  const dir = join(repo, 'results', testid);
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const loss = JSON.parse(readFileSync(join(dir, 'sample-loss.json'), 'utf8'));
  const [series] = await influxQuery(`SELECT count("value") FROM "http_reqs" WHERE "testid" = '${testid}'`);
  assertNothingLeft(name, out);
  return { status, out, testid, summary, loss, k6Reqs: summary.k6.metrics.http_reqs.values.count, influxReqs: series ? series.values[0][1] : 0 };
}

// A stalled InfluxDB must not stall the load's bookkeeping: after the run (teardown done) no loan
// is open and no item Checked out. folio-perf run reset the tenant before the run, so any is the run's.
function assertNothingLeft(name, out) {
  const tenant = 'fs09000000';
  const open = Number(sql(`select count(*) from ${tenant}_mod_circulation_storage.loan where lower(jsonb->'status'->>'name') = 'open'`));
  const out_ = Number(sql(`select count(*) from ${tenant}_mod_inventory_storage.item where jsonb->'status'->>'name' = 'Checked out'`));
  assert.deepEqual([open, out_], [0, 0], `${name}: open loans, Checked-out items after the run\n${out}`);
  assert.doesNotMatch(out, /the run left \d+ items checked out/);
}

test('an 18-second InfluxDB pause during a run loses no sample', async () => {
  const r = await pausedRun('pause', {}, { pauseAt: 8_000, pauseMs: 18_000 });
  assert.equal(r.status, 0, r.out);
  assert.ok(r.k6Reqs > 100, `the run made requests: ${r.k6Reqs}`);
  assert.equal(r.influxReqs, r.k6Reqs, `InfluxDB holds ${r.influxReqs} http_reqs points, k6 counted ${r.k6Reqs}`);
  assert.equal(r.loss.dropped, 0, JSON.stringify(r.loss));
  assert.equal(r.loss.written, r.loss.samples);
  assert.match(r.out, /retrying for up to/, 'the stall was seen and retried');
  assert.match(r.out, new RegExp(`==> samples: all ${r.loss.samples} written to InfluxDB`));
  assert.equal(r.summary.sampleLoss.dropped, 0);
});

test('InfluxDB stopped for longer than the retry time: the run says what was lost and fails (SAMPLE_LOSS=fail)', async () => {
  const r = await pausedRun('fail', { K6_INFLUXDB_RETRY_TIMEOUT: '2s' }, { pauseAt: 8_000, pauseMs: 15_000 });
  assert.ok(r.loss.dropped > 0, `something was lost: ${JSON.stringify(r.loss)}`);
  assert.equal(r.loss.written + r.loss.dropped, r.loss.samples);
  assert.equal(r.status, 96, r.out);
  assert.match(r.out, new RegExp(`==> samples: lost ${r.loss.dropped} of ${r.loss.samples} \\(\\d+\\.\\d\\d %\\)`));
  assert.match(r.out, /Lost \d+ of \d+ samples/, "k6's log says it too");
  assert.deepEqual([r.summary.sampleLoss.dropped, r.summary.sampleLoss.samples], [r.loss.dropped, r.loss.samples]);
  // A write that timed out while InfluxDB was stopped may still be stored when
  // it resumes (it sat in the socket): the dropped count is an upper bound.
  assert.ok(r.influxReqs <= r.k6Reqs, `InfluxDB holds no more than k6 made: ${r.influxReqs} of ${r.k6Reqs}`);
});

test('SAMPLE_LOSS=warn: the loss is reported and the exit code is k6\'s', async () => {
  const r = await pausedRun('warn', { K6_INFLUXDB_RETRY_TIMEOUT: '2s', SAMPLE_LOSS: 'warn' }, { pauseAt: 8_000, pauseMs: 15_000 });
  assert.ok(r.loss.dropped > 0, JSON.stringify(r.loss));
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, new RegExp(`lost ${r.loss.dropped} of ${r.loss.samples}`));
  assert.doesNotMatch(r.out, /the run fails for it/);
  assert.ok(r.summary.sampleLoss.share > 0 && r.summary.sampleLoss.share < 1);
});

// An InfluxDB of the test's own whose max-body-size (100 kB) is far below
// what k6 buffers in a push interval: every first write is refused with 413,
// and the output splits and cuts smaller instead of losing the batch.
test('InfluxDB with a small max-body-size: nothing lost to 413', async (t) => {
  const port = Number(env('FP_INFLUX_PORT')) + 60;
  const dir = mkdtempSync(join(tmpdir(), 'fp-influx-small-'));
  writeFileSync(join(dir, 'influxdb.conf'), [
    'reporting-disabled = true',
    `bind-address = "127.0.0.1:${port + 1}"`,
    `[meta]\n  dir = "${dir}/meta"`,
    `[data]\n  dir = "${dir}/data"\n  wal-dir = "${dir}/wal"\n  query-log-enabled = false`,
    `[http]\n  bind-address = "127.0.0.1:${port}"\n  log-enabled = false\n  max-body-size = 100000`,
    '[monitor]\n  store-enabled = false',
    '[logging]\n  level = "warn"',
  ].join('\n') + '\n');
  const influxd = spawn(process.env.FP_INFLUXD || 'influxd', ['-config', join(dir, 'influxdb.conf')], { stdio: 'ignore', env: childEnv() });
  t.after(() => {
    influxd.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  while (Date.now() - t0 < 30_000) {
    if (await fetch(`${url}/ping`).then((r) => r.ok, () => false)) break;
    await sleep(200);
  }
  const script = join(dir, 'load.js');
  writeFileSync(script, `import http from 'k6/http';
// A per-VU tag keeps the VUs' points apart: InfluxDB stores one point per series and
// timestamp, so two VUs' samples ending in the same nanosecond would count as one
// (about 0.6 such pairs a run at 100,000 samples in 8 s). k6's own vu system tag
// cannot do it: k6 sends it as metadata, which the output does not write.
export const options = { vus: 4, duration: '8s', systemTags: ['status', 'method', 'name'] };
export default function () { http.get('${url}/ping', { tags: { runner_vu: String(__VU) } }); }
`);
  const lossFile = join(dir, 'loss.json');
  const summaryFile = join(dir, 'summary.json');
  const r = await new Promise((resolve) => {
    const c = spawn(bin('k6'), ['run', '--quiet', '--address=', '--summary-export', summaryFile, '-o', `influxdb-lp=${url}/small`, script], {
      env: childEnv({ K6_NO_USAGE_REPORT: 'true', K6_INFLUXDB_LOSS_FILE: lossFile }),
    });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (out += d));
    const killer = setTimeout(() => c.kill('SIGKILL'), 120_000);
    c.on('close', (status) => {
      clearTimeout(killer);
      resolve({ status, out });
    });
  });
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /refused a \d+-byte write as too large \(413/, 'InfluxDB did refuse the first writes');
  const loss = JSON.parse(readFileSync(lossFile, 'utf8'));
  assert.equal(loss.dropped, 0, JSON.stringify(loss));
  const k6Reqs = JSON.parse(readFileSync(summaryFile, 'utf8')).metrics.http_reqs.count;
  const res = await fetch(`${url}/query?db=small&q=${encodeURIComponent('SELECT count("value") FROM "http_reqs"')}`).then((x) => x.json());
  const stored = res.results[0].series?.[0].values[0][1] ?? 0;
  assert.ok(k6Reqs > 1000, `enough load to pass 100 kB a second: ${k6Reqs} requests`);
  assert.equal(stored, k6Reqs, `InfluxDB holds ${stored} http_reqs points, k6 counted ${k6Reqs}`);
});

// A loss nobody counted is not no loss: when the output cannot write sample-loss.json (here a
// directory stands where it writes the file first), or fewer runners wrote theirs than ran, the
// run says the loss is unknown and fails under SAMPLE_LOSS=fail (exit 96), as for a counted loss.
async function blockedLossRun(name, vars, blocked) {
  const testid = `e2e-loss-${name}-${Date.now()}`;
  mkdirSync(join(repo, 'results', testid, blocked, 'sample-loss.json.tmp'), { recursive: true });
  const r = await runAsync(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: childEnv({ PROFILE: 'smoke', DURATION: '10s', MINIFOLIO_PROFILE: 'fast', TESTID: testid, ...vars }),
    timeoutMs: 240_000,
  });
  const out = r.stdout + r.stderr;
  assertNothingLeft(name, out);
  return { ...r, out, testid, summary: JSON.parse(readFileSync(join(repo, 'results', testid, 'summary.json'), 'utf8')) };
}

test('no sample-loss.json (the output could not write it): the loss is unknown, exit 96; SAMPLE_LOSS=warn only says it', async () => {
  const r = await blockedLossRun('unknown', {}, '.');
  assert.match(r.out, /Couldn't write the sample-loss report/, "k6's output says it could not");
  assert.match(r.out, /==> samples: \S+sample-loss\.json is missing or unreadable \(the output could not write it\); whether samples were lost is unknown/);
  assert.match(r.out, /==> the run fails for it \(SAMPLE_LOSS=fail/);
  assert.equal(r.status, 96, r.out);
  assert.equal(r.summary.sampleLoss.unknown, true);
  const warn = await blockedLossRun('unknown-warn', { SAMPLE_LOSS: 'warn' }, '.');
  assert.match(warn.out, /whether samples were lost is unknown/);
  assert.equal(warn.status, 0, warn.out);
});

test('RUNNERS=2, one runner without its sample-loss.json: the loss is unknown, exit 96', async () => {
  const r = await blockedLossRun('runners', { RUNNERS: '2', VUS: '2' }, join('runners', '2'));
  assert.match(r.out, /==> samples: 1 of 2 runners wrote their sample-loss file; whether the others' samples were lost is unknown/);
  assert.equal(r.status, 96, r.out);
  assert.equal(r.summary.sampleLoss.unknown, true);
});
