// The migration report: compare of an Okapi run (A) and a Eureka run (B) shows the hops' cost per
// API (every API both sent) and per process (each module beside its sidecar).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiHops, processHops, migrationSection, isMigration, platformOf } from '../../tools/report/migration.mjs';

const run = (platform, apis) => ({
  meta: { platform },
  k6: { metrics: Object.fromEntries(Object.entries(apis).map(([name, [p50, p95]]) => [`http_req_duration{name:${name},vus:1}`, { values: { count: 10, 'p(50)': p50, 'p(95)': p95 } }])) },
});
const rule = { tolerance: 0.5, slackMs: 50 };

test('migration only between platforms; the platform from meta or from the record', () => {
  assert.equal(isMigration(run('okapi', {}), run('eureka', {})), true);
  assert.equal(isMigration(run('eureka', {}), run('eureka', {})), false);
  assert.equal(isMigration({ meta: {} }, run('eureka', {})), false, 'a run that did not say is not judged');
  assert.equal(platformOf({ meta: { record: { platform: 'Eureka' } } }), 'eureka');
  assert.equal(migrationSection(run('okapi', {}), run('okapi', {}), {}, {}, rule), null);
});

test('every API both runs sent, A and B and what B adds in ms; an API of one run keeps its row', () => {
  const a = run('okapi', { 'GET /groups': [4, 9], 'GET /configurations/entries': [5, 8] });
  const b = run('eureka', { 'GET /groups': [6, 12.5], 'GET /users/configurations/entry': [3, 4] });
  const t = apiHops(a, b, rule);
  assert.deepEqual(t.columns.map((c) => c.label), ['API (users) stat', 'A', 'B', 'Δ %', 'B - A ms', 'Times better', 'Verdict']);
  const byLabel = Object.fromEntries(t.rows.map((r) => [r[0], r.slice(1)]));
  assert.deepEqual(byLabel['GET /groups (1 user) p50'].slice(0, 4), ['4.0', '6.0', '+50.0%', '+2.0']);
  assert.deepEqual(byLabel['GET /groups (1 user) p95'].slice(0, 4), ['9.0', '12.5', '+38.9%', '+3.5']);
  assert.deepEqual(byLabel['GET /configurations/entries (1 user) p50'].slice(0, 4), ['5.0', '-', '-', '-']);
  assert.deepEqual(byLabel['GET /users/configurations/entry (1 user) p95'].slice(0, 4), ['-', '4.0', '-', '-']);
});

test('per process: a module on A against the same module plus its sidecar on B; gateways on rows of their own', () => {
  const steps = (stats) => [{ vus: 1, phase: null, stats: Object.entries(stats).map(([module, cpu]) => ({ module, cpu_avg: cpu, mem_avg: 1 })) }];
  const t = processHops(steps({ okapi: 20, 'mod-circulation': 10 }), steps({ kong: 8, 'mod-circulation': 11, 'sidecar-mod-circulation': 4, keycloak: 2 }));
  const byLabel = Object.fromEntries(t.rows.map((r) => [r[0], r.slice(1)]));
  assert.deepEqual(byLabel['mod-circulation (1 user)'], ['10.0', '11.0', '4.0', '15.0', '+50.0%']);
  assert.deepEqual(byLabel['okapi (1 user)'], ['20.0', '-', '-', '-', '-']);
  assert.deepEqual(byLabel['kong (1 user)'], ['-', '8.0', '-', '8.0', '-']);
  assert.ok(!t.rows.some((r) => r[0].startsWith('sidecar-')), 'a sidecar sits beside its module, not on a row of its own');
});
