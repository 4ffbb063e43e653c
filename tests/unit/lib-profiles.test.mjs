import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildProfile as build, durationMs } from '../../lib/profiles.js';
import { PROFILES } from '../../lib/cico/profiles.js';

// The check-in/check-out workflow's profiles unless a test names its own.
const buildProfile = (name, overrides = {}, opts = { profiles: PROFILES }) => build(name, overrides, opts);

test('demo: 1, 5, 8, 20 VUs, 1 min each, one after another, tagged vus', () => {
  const p = buildProfile('demo');
  const s = Object.values(p.scenarios);
  assert.deepEqual(s.map((x) => x.vus), [1, 5, 8, 20]);
  assert.deepEqual(s.map((x) => x.tags.vus), ['1', '5', '8', '20']);
  assert.ok(s.every((x) => x.executor === 'constant-vus' && x.duration === '60s'));
  for (let i = 1; i < s.length; i++) {
    const prevEnd = durationMs(s[i - 1].startTime) + durationMs(s[i - 1].duration) + durationMs(s[i - 1].gracefulStop);
    assert.ok(durationMs(s[i].startTime) >= prevEnd, 'no overlap between user counts');
  }
});

test('every profile is bounded in time and has the documented shape', () => {
  assert.deepEqual(buildProfile('smoke').steps, [1]);
  assert.equal(buildProfile('smoke').durationMs, 60_000);
  assert.deepEqual(buildProfile('ptf').steps, [1, 5, 8, 20]);
  assert.equal(buildProfile('ptf').durationMs, 30 * 60_000);
  assert.deepEqual(buildProfile('longevity').steps, [20]);
  assert.equal(buildProfile('longevity').durationMs, 24 * 3600_000);
  const knee = buildProfile('knee').steps;
  assert.equal(knee[0], 1);
  assert.equal(knee.at(-1), 25);
  assert.ok(knee.every((v, i) => i === 0 || v > knee[i - 1]));
  // PTF's Eureka-era CICO reports: 8, 20, 30, 75 users x 45 min; longevity 30 users x 10 h.
  assert.deepEqual(buildProfile('ptf-eureka').steps, [8, 20, 30, 75]);
  assert.equal(buildProfile('ptf-eureka').durationMs, 45 * 60_000);
  assert.deepEqual(Object.values(buildProfile('ptf-eureka').scenarios).map((x) => x.tags.vus), ['8', '20', '30', '75']);
  assert.deepEqual(buildProfile('longevity-eureka').steps, [30]);
  assert.equal(buildProfile('longevity-eureka').durationMs, 10 * 3600_000);
  for (const name of Object.keys(PROFILES)) {
    const p = buildProfile(name);
    assert.ok(p.totalMs > 0 && p.totalMs <= 48 * 3600_000, name);
    assert.ok(Object.values(p.scenarios).every((x) => x.duration && x.gracefulStop), name);
  }
  assert.equal(buildProfile(undefined).name, 'smoke');
});

test('VUS and DURATION override the profile', () => {
  const one = buildProfile('smoke', { vus: '3', duration: '90s' });
  assert.deepEqual(Object.values(one.scenarios).map((x) => [x.vus, x.duration]), [[3, '90s']]);
  assert.deepEqual(buildProfile('ptf', { vus: '2,4', duration: '1m30s' }).steps, [2, 4]);
  assert.equal(buildProfile('ptf', { duration: '1m30s' }).durationMs, 90_000);
});

test('bad profile inputs: one line naming the fix', () => {
  assert.throws(() => buildProfile('stress'), /PROFILE "stress" is unknown; fix: use one of smoke, demo, ptf, longevity, knee/);
  assert.throws(() => buildProfile('smoke', { vus: 'ten' }), /VUS "ten" .*fix: use e\.g\. VUS=10/);
  assert.throws(() => buildProfile('smoke', { vus: '0' }), /VUS/);
  assert.throws(() => buildProfile('smoke', { duration: '5 minutes' }), /DURATION "5 minutes" is not a duration/);
  assert.throws(() => buildProfile('smoke', { duration: '200ms' }), /at least 1s/);
  assert.throws(() => buildProfile('longevity', { duration: '72h' }), /under 48 h/);
});

test('phases: each user count once per phase, in order, tagged; windows say when each runs', () => {
  const p = buildProfile('x', { duration: '30s' }, { profiles: { x: { steps: [1, 20], duration: '1m', gracefulStop: '10s', think: 'none' } }, phases: ['baseline', 'reindex'] });
  assert.deepEqual(Object.keys(p.scenarios), ['vus_1_baseline', 'vus_1_reindex', 'vus_20_baseline', 'vus_20_reindex']);
  assert.deepEqual(p.scenarios.vus_20_reindex.tags, { vus: '20', phase: 'reindex' });
  assert.deepEqual(p.windows.map((w) => [w.key, w.startMs]), [['vus_1_baseline', 0], ['vus_1_reindex', 40000], ['vus_20_baseline', 80000], ['vus_20_reindex', 120000]]);
  assert.equal(p.totalMs, 160000);
  assert.throws(() => buildProfile('knee', {}, { profiles: { x: {} } }), /PROFILE "knee" is unknown; fix: use one of x/);
  assert.throws(() => buildProfile('toString'), /PROFILE "toString" is unknown/);
});
