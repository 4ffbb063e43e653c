// The run's command line on the real stack: `folio-perf run` passes k6's exit
// code on (99 for a failed threshold, where `make run` says 2), a run without a
// terminal prints a progress line per interval and where to watch it live, and
// a bad setting or a login FOLIO refuses stops before k6 with one line, no k6
// report and no results directory. FOLIO_URL points a run elsewhere without
// minifolio being restarted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, env, run } from './helpers.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'fp-run-cli-'));
const folioPerf = join(repo, 'tools', 'folio-perf.mjs');
const runSh = join(repo, 'tools', 'run.sh');
// Only what the run prints itself: the tests' stack is up already.
const base = { PROFILE: 'smoke', MINIFOLIO_PROFILE: 'fast', FP_SEARCH: '0' };

// k6's own report and summary of a run that never started.
const K6_REPORT = /Thresholds:|FAILED|Response times:|summary\.json/;

test('folio-perf run exits 99 when a threshold fails; without a terminal it prints progress lines and where to watch live', () => {
  const th = JSON.parse(readFileSync(join(repo, 'thresholds.json'), 'utf8'));
  th.workflows.cico.transactions['check-out']['p(95)'] = 0.001; // no check-out is that fast
  const thFile = join(tmp, 'thresholds.json');
  writeFileSync(thFile, JSON.stringify(th));
  const testid = `e2e-cli-99-${Date.now()}`;
  const r = run('node', [folioPerf, 'run', `TESTID=${testid}`, 'DURATION=20s', 'THINK=none', `THRESHOLDS=${thFile}`, 'PROGRESS_EVERY=4'], {
    env: base,
    timeoutMs: 300_000,
  });
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 99, out);
  assert.match(out, /thresholds failed: k6 exit code 99/);
  assert.match(out, new RegExp(`==> live: InfluxDB http://127\\.0\\.0\\.1:${env('FP_INFLUX_PORT')} database k6, testid ${testid}`));
  assert.match(out, new RegExp(`--profile native-grafana up -d grafana-native, then open http://localhost:\\d+/d/folio-cico\\?var-testid=${testid}`));
  const progress = out.split('\n').filter((l) => l.startsWith('==> progress: '));
  assert.ok(progress.length >= 2, `want a progress line per 4 s over a 20 s run:\n${out}`);
  assert.ok(progress.some((l) => /[1-9]\d* requests \(\d+ failed\) in the last 4 s/.test(l)), progress.join('\n'));
  assert.ok(existsSync(join(repo, 'results', testid, 'summary.json')));
  assert.match(out, new RegExp(`==> results: results/${testid}/summary\\.json`));
});

test('a bad setting stops before k6 with one line and exit 1, and no results directory', () => {
  const testid = `e2e-cli-bad-${Date.now()}`;
  const r = run(runSh, [], { env: { ...base, TESTID: testid, FOLIO_TENANT: 'Not A Tenant' }, timeoutMs: 120_000 });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /^folio-perf: .*FOLIO_TENANT.*"Not A Tenant" is not a FOLIO tenant id.*fix/);
  assert.doesNotMatch(r.stdout + r.stderr, K6_REPORT);
  assert.equal(existsSync(join(repo, 'results', testid)), false);
});

test('a tenant FOLIO does not know: one line, exit 108, no k6 report, no results directory', () => {
  const testid = `e2e-cli-tenant-${Date.now()}`;
  const r = run(runSh, [], { env: { ...base, TESTID: testid, FOLIO_TENANT: 'nosuchtenant' }, timeoutMs: 180_000 });
  assert.equal(r.status, 108, r.stdout + r.stderr);
  assert.deepEqual(r.stderr.trim().split('\n'), [`folio-perf: FOLIO rejected tenant "nosuchtenant" (400 No such Tenant nosuchtenant); fix: set FOLIO_TENANT / folio.tenant to an existing tenant`]);
  assert.doesNotMatch(r.stdout + r.stderr, K6_REPORT);
  assert.equal(existsSync(join(repo, 'results', testid)), false);
});

test('FOLIO_URL set: minifolio is left alone; a wrong password stops with one line, exit 108, no results directory', () => {
  const testid = `e2e-cli-pw-${Date.now()}`;
  const password = 'not-the-operator-password';
  const r = run(runSh, [], {
    env: { ...base, TESTID: testid, FOLIO_URL: `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`, FOLIO_PASSWORD: password },
    timeoutMs: 60_000,
  });
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 108, out);
  assert.match(r.stdout, /minifolio is not started, seeded or reset/);
  assert.doesNotMatch(out, /==> minifolio: /);
  assert.deepEqual(r.stderr.trim().split('\n'), ['folio-perf: FOLIO rejected the login of user "folio_admin" (422); fix: check FOLIO_USER and FOLIO_PASSWORD']);
  assert.doesNotMatch(out, K6_REPORT);
  assert.ok(!out.includes(password), 'the password never reaches the output');
  assert.equal(existsSync(join(repo, 'results', testid)), false);
});
