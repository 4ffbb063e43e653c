// The search workflow through the generic runner: scenarios per phase, the reindex VU's scenario,
// the sub-metrics the tables read, the kind budgets, and every setting refused with one line.
// The CICO descriptor's run is checked in lib-run.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadRun as loadRunK6 } from '../../lib/k6/run.js';
import * as thresholds from '../../lib/thresholds.js';
import * as report from '../../lib/search/summary.js';
import { search } from '../../lib/workflows/search.js';
import { cico } from '../../lib/workflows/cico.js';
import { TEMPLATE_NAMES } from '../../lib/search/templates.js';
import * as record from '../../lib/record.js';

const modules = { '../thresholds.js': thresholds, '../search/summary.js': report, './record.js': record };
const root = new URL('../../', import.meta.url);
const read = (p) => readFileSync(p.startsWith('/') ? p : new URL(p, root), 'utf8');
const env = { FOLIO_PASSWORD: 'admin', TESTID: 'search-test-1' };
const loadRun = (extra = {}, p = {}) => loadRunK6({ read, env: { ...env, ...extra }, workflow: search, load: (path) => modules[path], ...p });

function refusal(extra) {
  try {
    loadRun(extra);
  } catch (e) {
    assert.equal(typeof e, 'string');
    assert.ok(!e.includes('\n'));
    assert.match(e, /^folio-perf: .*fix: /);
    return e;
  }
  assert.fail('no refusal');
}

test('demo with REINDEX_TENANT: baseline then reindex per user count, one reindex VU per reindex phase', () => {
  const run = loadRun({ PROFILE: 'demo', REINDEX_TENANT: 'fs09000001' });
  const sc = run.options.scenarios;
  assert.deepEqual(Object.keys(sc), ['vus_1_baseline', 'vus_1_reindex', 'vus_20_baseline', 'vus_20_reindex', 'warmup', 'reindex_1_reindex', 'reindex_20_reindex']);
  // A 30 s warm-up (1 user, phase warmup, read by no table) before the first step.
  assert.deepEqual(sc.warmup, { executor: 'constant-vus', vus: 1, duration: '30s', startTime: '0s', gracefulStop: '5s', tags: { vus: '1', phase: 'warmup' } });
  assert.equal(sc.vus_1_baseline.startTime, '35s');
  assert.equal(sc.vus_1_reindex.startTime, '110s');
  assert.deepEqual(sc.vus_20_reindex.tags, { vus: '20', phase: 'reindex' });
  assert.equal(sc.reindex_20_reindex.startTime, sc.vus_20_reindex.startTime);
  assert.equal(sc.reindex_20_reindex.maxDuration, sc.vus_20_reindex.duration);
  assert.deepEqual([sc.reindex_1_reindex.exec, sc.reindex_1_reindex.vus, sc.reindex_1_reindex.iterations], ['reindex', 1, 1]);
  assert.deepEqual(run.options.tags, { testid: 'search-test-1', workflow: 'search', release: 'minifolio', target: 'local' });
  const th = run.options.thresholds;
  assert.deepEqual(th['http_req_duration{kind:wildcard-prefix}'], ['p(95)<30000']);
  assert.deepEqual(th.http_req_failed, ['rate<=0.01']);
  for (const n of TEMPLATE_NAMES) {
    assert.ok(th[`http_req_duration{name:${n},vus:20,phase:reindex}`], n);
    assert.deepEqual(th[`search_slow_requests{name:${n},vus:1,phase:baseline}`], ['count>=0']);
  }
  assert.ok(th['reindex_duration{vus:1,outcome:completed}']);
  assert.deepEqual(run.reindex, { tenant: 'fs09000001', api: null, pollMs: 5000, repeat: false }, "api null: the target's mod-search decides in setup");
  assert.match(run.describe(), /reindex=fs09000001 \(the target's API/);
  assert.ok(!/db=|checkin-pool/.test(run.describe()));
});

test('without REINDEX_TENANT only the baseline phase runs, and no reindex scenario or metric', () => {
  const run = loadRun({ PROFILE: 'ptf' });
  assert.deepEqual(Object.keys(run.options.scenarios), ['vus_1_baseline', 'vus_20_baseline', 'warmup']);
  assert.equal(run.options.scenarios.warmup.duration, '300s');
  assert.deepEqual(Object.keys(loadRun({ PROFILE: 'ptf', WARMUP: '0' }).options.scenarios), ['vus_1_baseline', 'vus_20_baseline']);
  assert.equal(loadRun({ PROFILE: 'ptf', WARMUP: '0' }).options.scenarios.vus_1_baseline.startTime, '0s');
  assert.equal(loadRun({ WARMUP: '10s' }).options.scenarios.vus_1_baseline.startTime, '15s');
  assert.equal(run.options.scenarios.vus_20_baseline.duration, '3600s');
  assert.ok(!Object.keys(run.options.thresholds).some((k) => k.startsWith('reindex_')));
  assert.equal(run.reindex, null);
  assert.deepEqual(run.data, { dir: 'data/search', generated: true });
  assert.deepEqual(loadRun({ DATA: 'csv:/srv/ptf/' }).data, { dir: '/srv/ptf', generated: false });
});

test('a load VU gets no options and loads neither thresholds nor the report', () => {
  const loaded = [];
  const run = loadRunK6({ read, env: { ...env, REINDEX_TENANT: 'fs09000001', REINDEX_API: 'legacy', REINDEX_POLL: '2s' }, workflow: search, vu: 2, load: (p) => loaded.push(p) });
  assert.deepEqual(loaded, []);
  assert.equal(run.options, undefined);
  assert.deepEqual(run.reindex, { tenant: 'fs09000001', api: 'legacy', pollMs: 2000, repeat: false });
});

test('bad settings stop the script in init with one line (cause, fix)', () => {
  assert.match(refusal({ PROFILE: 'knee' }), /PROFILE "knee" is unknown; fix: use one of smoke, demo, ptf/);
  assert.match(refusal({ DATA: 'db' }), /DATA "db" is not a data source of the search workflow/);
  assert.match(refusal({ REINDEX_TENANT: 'FS-1' }), /REINDEX_TENANT "FS-1" is not a FOLIO tenant id/);
  assert.match(refusal({ REINDEX_TENANT: 'fs09000000' }), /REINDEX_TENANT "fs09000000" is the searched tenant/);
  assert.match(refusal({ REINDEX_TENANT: 'fs09000001', REINDEX_API: 'newest' }), /REINDEX_API "newest" is not one of current, legacy/);
  assert.match(refusal({ REINDEX_TENANT: 'fs09000001', REINDEX_POLL: '0s' }), /REINDEX_POLL "0s"/);
  assert.match(refusal({ REINDEX_TENANT: 'fs09000001', REINDEX_REPEAT: 'yes' }), /REINDEX_REPEAT "yes" is not a flag/);
  assert.match(refusal({ REINDEX_API: 'legacy' }), /REINDEX_API is set but REINDEX_TENANT is not/);
  assert.match(refusal({ THINK: 'ptf' }), /THINK is a setting of the check-in\/check-out workflow/);
  assert.match(refusal({ BASELINE: 'baselines/minifolio-fast.json' }), /BASELINE is not supported by the search workflow/);
  assert.match(refusal({ VUS: '0' }), /VUS "0"/);
  assert.match(refusal({ WARMUP: 'soon' }), /WARMUP "soon" is not a duration up to 1h; fix: /);
  assert.match(refusal({ DURATION: 'long' }), /DURATION "long"/);
  assert.match(refusal({ FOLIO_PASSWORD: '' }), /FOLIO_PASSWORD is not set/);
  assert.match(refusal({ TESTID: 'a b' }), /TESTID "a b" is not a test id/);
});

test('the search workflow needs no database settings, CICO still does', () => {
  assert.doesNotThrow(() => loadRun({ FOLIO_DB_PASSWORD: '' }));
  assert.throws(
    () => loadRunK6({ read, env: { FOLIO_PASSWORD: 'admin' }, workflow: cico, load: (p) => ({ '../thresholds.js': thresholds, '../cico/summary.js': {} })[p] }),
    /FOLIO_DB_PASSWORD is not set/,
  );
});
