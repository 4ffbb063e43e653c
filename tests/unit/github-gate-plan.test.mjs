// The gate on your FOLIO's plan (tools/gate/plan.mjs) and job-summary lines (tools/gate/summary.mjs):
// what the workflow's inputs become, each bad one in one line naming the input and the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gatePlan, parseSettings, runArgs, verdictArgs, DEFAULT_RUNS } from '../../tools/gate/plan.mjs';
import { baselineSummary, candidateFooter, candidateHeader } from '../../tools/gate/summary.mjs';
import { PROFILES } from '../../lib/cico/profiles.js';

const now = new Date('2026-11-26T03:00:00Z');
const base = {
  GATE_MODE: 'baseline',
  FOLIO_URL: 'https://okapi-staging.example.org',
  FOLIO_TENANT: 'diku',
  FOLIO_USER: 'perf_operator',
  FOLIO_DB_HOST: 'db.example.org',
  FOLIO_DB_NAME: 'folio',
  FOLIO_DB_USER: 'folio_ro',
  GATE_REPOSITORY_DIR: '/w/your-repository',
  // what the workflow passes for inputs left at '' (empty, not absent)
  RELEASE: '',
  DURATION: '',
  GATE_SETTINGS: '',
  FOLIO_PASSWORD: 'never-in-argv',
};
const plan = (env, opts = {}) => gatePlan({ ...base, ...env }, { profiles: PROFILES, now, ...opts });
const oneLine = (fn, re) => {
  try {
    fn();
  } catch (e) {
    assert.equal(e.name, 'GateError', e.stack);
    assert.equal(e.message.split('\n').length, 1, e.message);
    assert.match(e.message, /; fix: /);
    assert.match(e.message, re);
    return;
  }
  assert.fail(`no error, expected ${re}`);
};

test('baseline: 4 runs of smoke by default, every target setting named, so none comes from env/local.json', () => {
  const p = plan({});
  assert.equal(p.runs, DEFAULT_RUNS);
  assert.equal(p.release, 'baseline');
  assert.equal(p.profile, 'smoke');
  assert.equal(p.duration, null);
  assert.deepEqual(p.runEnv, {
    FOLIO_URL: 'https://okapi-staging.example.org', FOLIO_TENANT: 'diku', FOLIO_USER: 'perf_operator', RELEASE: 'baseline', PROFILE: 'smoke',
    DATA: 'db', FOLIO_DB_HOST: 'db.example.org', FOLIO_DB_PORT: '5432', FOLIO_DB_NAME: 'folio', FOLIO_DB_USER: 'folio_ro', FOLIO_DB_SSLMODE: 'prefer',
  });
  assert.deepEqual(p.testids, ['gate-baseline-20261126T030000Z-1', 'gate-baseline-20261126T030000Z-2', 'gate-baseline-20261126T030000Z-3', 'gate-baseline-20261126T030000Z-4']);
  assert.equal(p.out, 'results/gate-baseline');
  assert.equal(p.artifact, 'folio-perf-baseline');
  assert.equal(p.baselineFile, null);
});

test("runs' arguments: the plan's settings and the extra ones, never a password", () => {
  const p = plan({ RELEASE: 'quesnelia', DURATION: '2m', GATE_RUNS: '3', GATE_SETTINGS: '# PTF think times\nTHINK=ptf\n\nVUS=8\n' });
  const args = runArgs(p, p.testids[0]);
  assert.equal(args[0], 'run');
  assert.ok(args.includes('DURATION=2m') && args.includes('THINK=ptf') && args.includes('VUS=8') && args.includes('TESTID=gate-quesnelia-20261126T030000Z-1'), args.join(' '));
  assert.doesNotMatch(args.join(' '), /never-in-argv|PASSWORD/);
  assert.equal(p.runs, 3);
});

test('data: csv:<dir> is a directory of your repository', () => {
  const p = plan({ DATA: 'csv:data/staging', FOLIO_DB_HOST: '' });
  assert.equal(p.runEnv.DATA, 'csv:/w/your-repository/data/staging');
  assert.equal(p.runEnv.FOLIO_DB_HOST, undefined);
});

test('candidate: the baseline committed in your repository, or the downloaded artifact; its profile and duration', () => {
  const b = { profile: 'smoke', runs: [{ stepDuration: '45s' }] };
  const p = plan({ GATE_MODE: 'candidate', RELEASE: 'ramsons', GATE_BASELINE: 'baselines/quesnelia.json' }, { baseline: b });
  assert.equal(p.baselineFile, '/w/your-repository/baselines/quesnelia.json');
  assert.equal(p.runEnv.DURATION, '45s');
  assert.deepEqual(p.testids, ['gate-ramsons-20261126T030000Z']);
  assert.equal(p.artifact, 'folio-perf-candidate');
  const a = plan({ GATE_MODE: 'candidate', GATE_BASELINE_RUN_ID: '123', GATE_BASELINE_DIR: '/w/baseline-artifact' });
  assert.equal(a.baselineFile, '/w/baseline-artifact/baseline.json');
  assert.deepEqual(verdictArgs(a, 'c1'), ['verdict', 'c1', '--baseline', '/w/baseline-artifact/baseline.json', '--alpha', '0.05', '--control', 'speed']);
  assert.deepEqual(verdictArgs(plan({ GATE_MODE: 'candidate', GATE_BASELINE: 'b.json', GATE_CONTROL: 'none', GATE_ALPHA: '0.01' }), 'c1'), ['verdict', 'c1', '--baseline', '/w/your-repository/b.json', '--alpha', '0.01']);
  oneLine(() => plan({ GATE_MODE: 'candidate', GATE_BASELINE: 'b.json', PROFILE: 'demo' }, { baseline: b }), /^profile \(PROFILE\) is demo, the baseline's runs ran smoke; fix: profile: smoke/);
});

test('bad inputs: one line naming the input and the fix', () => {
  oneLine(() => plan({ GATE_MODE: '' }), /^mode \(GATE_MODE\) is ""/);
  oneLine(() => plan({ FOLIO_URL: '' }), /^folio-url \(FOLIO_URL\) is empty/);
  oneLine(() => plan({ FOLIO_URL: 'okapi:9130' }), /^folio-url \(FOLIO_URL\) "okapi:9130" is not an http\(s\) URL/);
  oneLine(() => plan({ FOLIO_TENANT: ' ' }), /^tenant \(FOLIO_TENANT\) is empty/);
  oneLine(() => plan({ FOLIO_USER: '' }), /^user \(FOLIO_USER\) is empty/);
  oneLine(() => plan({ RELEASE: 'a b' }), /^release \(RELEASE\) "a b" is not a release label/);
  for (const n of ['1', '21', 'four']) oneLine(() => plan({ GATE_RUNS: n }), new RegExp(`^runs \\(GATE_RUNS\\) "${n}" is not a number of baseline runs from 2 to 20`));
  oneLine(() => plan({ PROFILE: 'huge' }), /^profile \(PROFILE\) "huge" is unknown; fix: use one of smoke, /);
  oneLine(() => plan({ DURATION: 'soon' }), /^duration \(DURATION\) "soon" is not a duration/);
  oneLine(() => plan({ DATA: 'ldap' }), /^data \(DATA\) "ldap" is not a data source/);
  for (const k of ['FOLIO_DB_HOST', 'FOLIO_DB_NAME', 'FOLIO_DB_USER']) oneLine(() => plan({ [k]: '' }), new RegExp(`\\(${k}\\) is empty`));
  oneLine(() => plan({ GATE_ALPHA: '0.5' }), /^alpha \(GATE_ALPHA\) "0\.5" is not a false-alarm rate/);
  oneLine(() => plan({ GATE_MODE: 'candidate' }), /^a candidate needs its baseline: .*baseline-run-id: <the run of the baseline job> \(its artifact folio-perf-baseline\)$/);
});

test('settings: NAME=VALUE lines; secrets, the inputs\' own names and what would redirect the run are refused', () => {
  assert.deepEqual(parseSettings('THINK=ptf\n  VUS=1,5 \n# c\n\nCHECKIN_POOL=any'), [['THINK', 'ptf'], ['VUS', '1,5'], ['CHECKIN_POOL', 'any']]);
  oneLine(() => parseSettings('think=ptf'), /^settings \(GATE_SETTINGS\): "think=ptf" is not a NAME=VALUE line/);
  oneLine(() => parseSettings('FOLIO_PASSWORD=x'), /FOLIO_PASSWORD is a secret; fix: pass it as a secret of the workflow/);
  oneLine(() => parseSettings('FOLIO_URL=https://prod'), /FOLIO_URL is set by the input folio-url; fix: remove it from settings and set folio-url/);
  for (const k of ['TESTID', 'FOLIO_ENV', 'K6_ENV', 'MINIFOLIO_PROFILE', 'BASELINE']) oneLine(() => parseSettings(`${k}=x`), new RegExp(`${k} cannot be set here`));
});

test('job summary: the baseline per run and metric, how to judge against it; the candidate above and below the verdict', () => {
  const b = {
    release: 'quesnelia', profile: 'smoke', steps: [1], think: 'none', created: '2026-11-26T03:10:00Z',
    runs: [{ testid: 'r1', stepDuration: '120s' }, { testid: 'r2', stepDuration: '120s' }],
    metrics: { 'transaction_duration{transaction:check-out}': { runs: [{ q: 41.23, n: 1380 }, { q: 43.9, n: 1290 }], spreadPct: 4.5 } },
    spread: { pct: 3.2 },
  };
  const p = plan({ RELEASE: 'quesnelia' });
  const md = baselineSummary(b, { plan: p, runId: '42', artifact: 'folio-perf-baseline', file: 'results/gate-baseline/baseline.json' });
  assert.match(md, /^### folio-perf baseline: quesnelia on https:\/\/okapi-staging\.example\.org \(tenant diku\)$/m);
  assert.match(md, /\(users 1, 120s each, think none\)/);
  assert.match(md, /^\| metric \| run 1 p95 ms \(n\) \| run 2 p95 ms \(n\) \| run-to-run spread % \|$/m);
  assert.match(md, /^\| transaction_duration\{transaction:check-out\} \| 41\.2 \(1380\) \| 43\.9 \(1290\) \| 4\.5 \|$/m);
  assert.match(md, /`baseline-run-id: 42`/);
  assert.match(md, /Pooled run-to-run spread of p95: 3\.2 %/);
  const c = plan({ GATE_MODE: 'candidate', RELEASE: 'ramsons', GATE_BASELINE: 'baselines/q.json' }, { baseline: b });
  assert.match(candidateHeader(b, { plan: c, testid: 'gate-ramsons-1' }), /^### folio-perf gate: ramsons on https:\/\/okapi-staging\.example\.org \(tenant diku\)\n\nCandidate `gate-ramsons-1` \(PROFILE=smoke\) against the baseline \(baselines\/q\.json\): release quesnelia, 2 runs, recorded 2026-11-26T03:10:00Z\. Judged relative to the run's speed at a false-alarm rate of 0\.05/);
  const a = plan({ GATE_MODE: 'candidate', GATE_BASELINE_RUN_ID: '42', GATE_BASELINE_DIR: '/w/baseline-artifact' }, { baseline: b });
  assert.match(candidateHeader(b, { plan: a, testid: 't' }), /against the baseline \(baseline\.json of the artifact folio-perf-baseline of run 42\)/);
  assert.match(candidateFooter({ code: 99, artifact: 'folio-perf-candidate', testid: 't' }), /Verdict \*\*failed\*\*.*`runs\/t\/report\.html`/);
  assert.match(candidateFooter({ code: 0, artifact: 'a', testid: 't' }), /Verdict \*\*passed\*\*/);
});
