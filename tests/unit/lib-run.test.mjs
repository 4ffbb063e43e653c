// lib/k6/run.js imports nothing from k6 (files come through `read`), so the whole init-time
// assembly of a run is tested here: options, tags, thresholds and every early refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadRun as loadRunK6 } from '../../lib/k6/run.js';
import * as thresholds from '../../lib/thresholds.js';
import * as summary from '../../lib/cico/summary.js';
import { cico } from '../../lib/workflows/cico.js';
import * as record from '../../lib/record.js';

// In k6, VU 0 loads these through require(); here they come from the imports above (the record's
// k6 half imports k6/http: its pure half gives what init uses, gitCommit).
const vuZeroModules = { '../thresholds.js': thresholds, '../cico/summary.js': summary, './record.js': record };
const loadRun = (p) => loadRunK6({ load: (path) => vuZeroModules[path], ...p });

const root = new URL('../../', import.meta.url);
const read = (p) => readFileSync(p.startsWith('/') ? p : new URL(p, root), 'utf8');
const env = { FOLIO_PASSWORD: 'admin', FOLIO_DB_PASSWORD: 'folio', TESTID: 'cico-test-1' };

function refusal(extra, readFn = read) {
  try {
    loadRun({ read: readFn, env: { ...env, ...extra }, workflow: cico });
  } catch (e) {
    assert.equal(typeof e, 'string', 'thrown as a string: k6 prints it without a stack trace');
    assert.ok(!e.includes('\n'));
    assert.match(e, /^folio-perf: .*fix: /);
    return e;
  }
  assert.fail('no refusal');
}

test('demo run: scenarios, run-wide tags, thresholds with per-vus sub-metrics', () => {
  const run = loadRun({ read, env: { ...env, PROFILE: 'demo', RELEASE: 'lotus' }, workflow: cico });
  const o = run.options;
  assert.deepEqual(Object.keys(o.scenarios), ['vus_1', 'vus_5', 'vus_8', 'vus_20']);
  // The CICO descriptor gives the scenarios CICO always had: no phase, the default function.
  assert.deepEqual(o.scenarios.vus_5, { executor: 'constant-vus', vus: 5, duration: '60s', startTime: '75s', gracefulStop: '15s', tags: { vus: '5' } });
  assert.deepEqual(o.tags, { testid: 'cico-test-1', workflow: 'cico', release: 'lotus', target: 'local' });
  assert.deepEqual(o.thresholds['transaction_duration{transaction:check-out}'], ['p(95)<2000']);
  assert.ok(o.thresholds['transaction_duration{transaction:check-in,vus:20}']);
  assert.ok(o.thresholds['http_req_duration{name:GET /automated-patron-blocks/{id},vus:8}']);
  assert.ok(o.summaryTrendStats.includes('p(75)'));
  assert.equal(run.slots, 34);
  assert.equal(run.think.mode, 'fixed');
  assert.equal(run.resultsDirExists, false, 'results/cico-test-1 does not exist');
});

test('secrets never reach options or the printed description', () => {
  const run = loadRun({ read, env: { ...env, FOLIO_PASSWORD: 's3cr3t-pw', FOLIO_DB_PASSWORD: 'db-s3cr3t' }, workflow: cico });
  const visible = JSON.stringify(run.options) + run.describe();
  assert.ok(!visible.includes('s3cr3t'));
});

test('BASELINE adds regression rules next to the SLOs', () => {
  const base = {
    format: 'folio-perf-baseline/1', workflow: 'cico', release: 'fast', testid: 't0',
    transactions: { 'check-out': { 'p(95)': 100 }, 'check-in': { 'p(95)': 40 } },
    apis: { 'GET /automated-patron-blocks/{id}': { 'p(95)': 10 } },
  };
  const readWith = (p) => (p === 'baselines/t0.json' ? JSON.stringify(base) : read(p));
  const run = loadRun({ read: readWith, env: { ...env, BASELINE: 'baselines/t0.json' }, workflow: cico });
  assert.deepEqual(run.options.thresholds['transaction_duration{transaction:check-out}'], ['p(95)<2000', 'p(95)<200']);
  assert.deepEqual(run.options.thresholds['http_req_duration{name:GET /automated-patron-blocks/{id}}'], ['p(95)<500', 'p(95)<65']);
});

test('bad inputs are refused in init, one line each', () => {
  assert.match(refusal({ PROFILE: 'huge' }), /PROFILE "huge" is unknown/);
  assert.match(refusal({ FOLIO_ENV: 'nowhere' }), /environment file env\/nowhere\.json cannot be read; fix: create env\/nowhere\.json/);
  assert.match(refusal({ K6_ENV: 'nowhere' }), /environment file env\/nowhere\.json cannot be read/, 'the old name still names the file');
  assert.match(refusal({ FOLIO_PASSWORD: '' }), /FOLIO_PASSWORD is not set/);
  assert.match(refusal({ THINK: 'lots' }), /THINK "lots"/);
  assert.match(refusal({ DISTRIBUTION: '40-40' }), /adds up to 80/);
  assert.match(refusal({ PREFLIGHT: 'yes' }), /PREFLIGHT "yes" is not a flag/);
  assert.match(refusal({ POOL_PER_VU: '0' }), /POOL_PER_VU/);
  assert.match(refusal({ TESTID: 'a/b' }), /TESTID "a\/b" is not a test id/);
  assert.match(refusal({ BASELINE: 'baselines/none.json' }), /baseline baselines\/none\.json cannot be read/);
  assert.match(refusal({ THRESHOLDS: 'package.json' }), /package\.json: has no "workflows" object/);
  const broken = (p) => (p === 'thresholds.json' ? '{"workflows": ' : read(p));
  assert.match(refusal({}, broken), /thresholds\.json: is not valid JSON/);
});

test("a load VU's own init (vu >= 1) gets what an iteration needs, and never loads the thresholds, the baseline or the report", () => {
  const loaded = [];
  const run = loadRunK6({
    read,
    env: { ...env, BASELINE: 'baselines/not-read-in-vus.json', THINK: '250' },
    workflow: cico,
    vu: 3,
    load: (path) => loaded.push(path),
  });
  assert.deepEqual(loaded, []);
  assert.equal(run.options, undefined);
  assert.equal(run.report, undefined);
  assert.equal(run.cfg.folio.tenant, 'fs09000000');
  assert.equal(run.slots, 1);
  assert.equal(run.perVu, 50);
  assert.equal(run.distribution.checkIn, 43);
  assert.deepEqual(Object.keys(run.profile.scenarios), ['vus_1']);
  // VU 0 loads them, once each.
  const zero = [];
  loadRunK6({ read, env, workflow: cico, load: (path) => (zero.push(path), vuZeroModules[path]) });
  assert.deepEqual(zero, ['../thresholds.js', '../cico/summary.js', './record.js']);
});

test('INSTANCE: one runner of a split run tags its samples instance=<name>; a bad name is refused', () => {
  const o = loadRun({ read, env: { ...env, INSTANCE: '2' }, workflow: cico }).options;
  assert.deepEqual(o.tags, { testid: 'cico-test-1', workflow: 'cico', release: 'minifolio', target: 'local', instance: '2' });
  assert.match(refusal({ INSTANCE: 'a b' }), /INSTANCE "a b" is not a runner name; fix:/);
});
