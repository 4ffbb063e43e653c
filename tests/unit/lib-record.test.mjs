// The record of what a run tests (lib/record.js): the module list as Okapi and Eureka give it,
// module ids split as Okapi splits them, k6's version from its User-Agent, the commit from a
// checkout's .git (a clone, a worktree, packed refs, a detached HEAD), the machine from the front
// door's environment, and nothing but ids, names, versions and counts kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { splitModuleId, okapiModules, eurekaModules, k6VersionFromUserAgent, gitCommit, machineFrom, buildRecord, MACHINE_ENV, OKAPI_MODULES, EUREKA_APPLICATIONS } from '../../lib/record.js';

const fixture = (f) => JSON.parse(readFileSync(new URL(`./fixtures/${f}`, import.meta.url), 'utf8'));
const load = { profile: 'demo', steps: [1, 5, 8, 20], stepDuration: '60s', think: '500' };
const counts = { items: { status: 200, body: { items: [], totalRecords: 20000 } }, users: { status: 200, body: { users: [], totalRecords: 2000 } }, instances: { status: 200, body: { instances: [], totalRecords: 20000 } } };
const env = { [MACHINE_ENV.cores]: '2', [MACHINE_ENV.memoryBytes]: String(8 * 2 ** 30) };
const commit = { commit: 'a'.repeat(40), ref: 'refs/heads/main' };

test('module ids split where Okapi splits them: at the first "-" before a digit', () => {
  assert.deepEqual(splitModuleId('mod-circulation-storage-14.0.0'), { id: 'mod-circulation-storage-14.0.0', name: 'mod-circulation-storage', version: '14.0.0' });
  assert.deepEqual(splitModuleId('mod-users-19.4.4-SNAPSHOT.123'), { id: 'mod-users-19.4.4-SNAPSHOT.123', name: 'mod-users', version: '19.4.4-SNAPSHOT.123' });
  assert.deepEqual(splitModuleId('okapi-4.13.2'), { id: 'okapi-4.13.2', name: 'okapi', version: '4.13.2' });
  assert.deepEqual(splitModuleId('no-version'), { id: 'no-version', name: 'no-version', version: null });
});

test('Okapi: the tenant\'s module ids, sorted by name, the gateway from okapi\'s own entry', () => {
  // minifolio's layout (Okapi's Json.encodePrettily), ids only
  const body = [{ id: 'mod-users-18.2.0' }, { id: 'okapi-4.13.2' }, { id: 'mod-circulation-23.0.1' }];
  assert.deepEqual(okapiModules(body).map((m) => m.name), ['mod-circulation', 'mod-users', 'okapi']);
  const r = buildRecord({ tenant: 'fs09000000', answers: { okapi: { status: 200, body }, counts, userAgent: ['Grafana k6/1.8.1'] }, commit, load, env });
  assert.equal(r.platform, 'Okapi');
  assert.equal(r.gateway, 'okapi 4.13.2');
  assert.equal(r.modulesSource, `GET ${OKAPI_MODULES('fs09000000')}`);
  assert.equal(r.modules.find((m) => m.name === 'mod-users').version, '18.2.0');
  assert.deepEqual(r.data, { items: 20000, users: 2000, instances: 20000 });
  assert.deepEqual(r.k6, { version: '1.8.1' });
  assert.deepEqual(r.machine, { cores: 2, memoryBytes: 8 * 2 ** 30 });
  assert.deepEqual(r.folioPerf, commit);
  assert.deepEqual(r.load, load);
  assert.deepEqual(r.problems, []);
  assert.equal(r.applications, undefined);
});

test('Eureka: applications and their modules from the entitlements, the gateway from /version; nothing else of the descriptors', () => {
  const body = fixture('eureka-entitlements.json');
  const e = eurekaModules(body);
  assert.deepEqual(e.applications.map((a) => a.id), ['app-circulation-1.0.12', 'app-platform-minimal-2.0.19']);
  // the UI modules too: which screens a run replays follows their versions (lib/cico/releases.js)
  assert.equal(e.modules.length, 7);
  assert.deepEqual(e.modules.find((m) => m.name === 'folio_users'), { id: 'folio_users-11.0.3', name: 'folio_users', version: '11.0.3', application: 'app-platform-minimal-2.0.19' });
  assert.deepEqual(e.modules.find((m) => m.name === 'mod-circulation'), { id: 'mod-circulation-24.4.3', name: 'mod-circulation', version: '24.4.3', application: 'app-circulation-1.0.12' });
  const r = buildRecord({
    tenant: 'fs09000000',
    // Kong answers /_/proxy with its 404
    answers: { okapi: { status: 404, body: { message: 'no Route matched with those values' } }, eureka: { status: 200, body }, version: { status: 200, body: { version: '3.9.1', edition: 'community' } }, counts, userAgent: 'Grafana k6/1.8.1' },
    commit,
    load,
    env,
  });
  assert.equal(r.platform, 'Eureka');
  assert.equal(r.gateway, 'kong 3.9.1');
  assert.equal(r.modulesSource, `GET ${EUREKA_APPLICATIONS('fs09000000')}`);
  assert.equal(r.modules.length, 7);
  assert.equal(r.applications.length, 2);
  // the descriptors' launch environment (a database password, a barcode) stays out
  const text = JSON.stringify(r);
  for (const secret of ['s3cret-db-pw', '31234000000001', 'DB_PASSWORD', 'launchDescriptor', 'http://mod-users']) assert.ok(!text.includes(secret), secret);
});

test('what a target does not answer is named in problems, never thrown; no guess', () => {
  const r = buildRecord({ tenant: 't', answers: { okapi: { status: 403, body: null }, eureka: { status: 404, body: null }, counts: { items: { status: 403, body: null } }, userAgent: 'my-agent' }, commit: null, load, env: {} });
  assert.equal(r.platform, null);
  assert.deepEqual(r.modules, []);
  assert.equal(r.k6, null);
  assert.equal(r.machine, null);
  assert.equal(r.folioPerf, null);
  assert.deepEqual(r.data, { items: null, users: null, instances: null });
  assert.equal(r.problems.length, 7, r.problems.join('\n'));
  assert.match(r.problems[0], /answered 403 .* answered 404/);
});

test('k6 version from the User-Agent k6 sends by default; an overridden one gives none', () => {
  assert.equal(k6VersionFromUserAgent('Grafana k6/1.8.1'), '1.8.1');
  assert.equal(k6VersionFromUserAgent(['Grafana k6/1.2.0-rc1 (https://k6.io/)']), '1.2.0-rc1');
  assert.equal(k6VersionFromUserAgent('folio-perf (k6)'), null);
  assert.equal(k6VersionFromUserAgent(undefined), null);
});

test('machine from the front door\'s environment', () => {
  assert.deepEqual(machineFrom(env), { cores: 2, memoryBytes: 8 * 2 ** 30 });
  assert.deepEqual(machineFrom({ [MACHINE_ENV.cores]: '4' }), { cores: 4, memoryBytes: null });
  assert.equal(machineFrom({ [MACHINE_ENV.cores]: 'x' }), null);
});

test('the commit: a clone, a worktree (gitdir file, commondir), packed refs, a detached HEAD, no .git', () => {
  const sha = (c) => c.repeat(40);
  const reader = (files) => (p) => {
    if (!(p in files)) throw new Error(`no ${p}`);
    return files[p];
  };
  assert.deepEqual(gitCommit(reader({ '.git/HEAD': 'ref: refs/heads/main\n', '.git/refs/heads/main': `${sha('1')}\n` })), { commit: sha('1'), ref: 'refs/heads/main' });
  assert.deepEqual(
    gitCommit(reader({ '.git': 'gitdir: /r/.git/worktrees/report\n', '/r/.git/worktrees/report/HEAD': 'ref: refs/heads/wt-report\n', '/r/.git/worktrees/report/commondir': '../..\n', '/r/.git/worktrees/report/../../refs/heads/wt-report': sha('2') })),
    { commit: sha('2'), ref: 'refs/heads/wt-report' },
  );
  assert.deepEqual(gitCommit(reader({ '.git/HEAD': 'ref: refs/heads/main', '.git/packed-refs': `# pack-refs with: peeled\n${sha('3')} refs/heads/main\n` })), { commit: sha('3'), ref: 'refs/heads/main' });
  assert.deepEqual(gitCommit(reader({ '.git/HEAD': `${sha('4')}\n` })), { commit: sha('4'), ref: null });
  assert.equal(gitCommit(reader({})), null);
  // this checkout's own
  const here = gitCommit((p) => readFileSync(p.startsWith('/') ? p : new URL(`../../${p}`, import.meta.url), 'utf8'));
  assert.match(here.commit, /^[0-9a-f]{40}$/);
});
