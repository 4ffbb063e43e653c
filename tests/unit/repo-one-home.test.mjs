// One home per rule, read everywhere else: the defaults (ports, tenants, operator, local
// passwords) in defaults.env, the metric names in lib/metrics.js, the test id rule in
// lib/testid.js. Each test greps the code for a second definition, and the last one moves the
// gateway port in a copy of the repository and follows it into the native stack and the env files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseDefaults } from '../../lib/defaults.js';
import { METRICS, FIELDS } from '../../lib/metrics.js';
import { copyRepo, repo } from './repo-copy.mjs';

const read = (f) => {
  try {
    return readFileSync(join(repo, f), 'utf8');
  } catch {
    return ''; // deleted in the work tree
  }
};
const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
  .split('\0')
  .filter((f) => f && !f.includes('node_modules/'));
const D = parseDefaults(read('defaults.env'));
const comment = (line) => /^\s*(\/\/|\*|\/\*|#)/.test(line);
// A value shown as an example in a message ("e.g. REINDEX_TENANT=fs09000001") is not a default.
const example = (line) => /\be\.g\./.test(line);

/** file:line of every line of `paths` matching re, comments and examples left out. */
function hits(paths, re) {
  const out = [];
  for (const f of paths) {
    read(f)
      .split('\n')
      .forEach((line, i) => {
        if (!comment(line) && !example(line) && re.test(line)) out.push(`${f}:${i + 1}: ${line.trim()}`);
      });
  }
  return out;
}

// The code and configuration the project runs (not the docs, not the tests, which check the rules
// with values of their own). Out of scope, each for its reason: minifolio/ and k6/ (Go programs
// with their own flags), env/docker.json and docker-compose.yml's container ports (the compose
// network's view, ports inside the containers; the ports compose publishes on the host are checked
// in tests/compose), k8s/overlays/ (a cluster's view of a host), env/folio.example.json (a real
// FOLIO's), the generated dashboards.
const RUN_CODE = files.filter(
  (f) =>
    /\.(m?js|sh|mk|json|ya?ml|conf)$|(^|\/)Makefile$/.test(f) &&
    !/^(minifolio|k6|tests|k8s\/overlays|dashboards\/generated)\//.test(f) &&
    !['defaults.env', 'env/docker.json', 'env/folio.example.json', 'docker-compose.yml', 'package-lock.json', 'dashboards/package-lock.json'].includes(f),
);
const JS = RUN_CODE.filter((f) => /\.m?js$/.test(f));

test('defaults.env is KEY=VALUE lines every reader takes alike, and holds the ports, tenants and operator', () => {
  for (const k of ['FP_PG_PORT', 'FP_INFLUX_PORT', 'FP_MINIFOLIO_PORT', 'FP_OPENSEARCH_PORT', 'FP_GRAFANA_PORT', 'FP_TENANT', 'FP_REINDEX_TENANT', 'FP_USER']) assert.ok(D[k], `defaults.env sets ${k}`);
  assert.equal(readFileSync(join(repo, '.env'), 'utf8'), read('defaults.env'), '.env (what docker compose reads) is defaults.env');
});

test('a default port is written once: in defaults.env', () => {
  // Grafana's 3000 is too common a number to grep for (think timers, timeouts): compose's use of it
  // is checked in tests/compose.
  const ports = Object.entries(D).filter(([k, v]) => /_PORT$/.test(k) && k !== 'FP_GRAFANA_PORT' && v.length >= 4).map(([, v]) => v);
  assert.ok(ports.length >= 6);
  const found = hits(RUN_CODE, new RegExp(`(?<![\\d.])(${ports.join('|')})(?![\\d])`));
  assert.deepEqual(found, [], 'read it from defaults.env (tools/defaults.sh, tools/defaults.mjs, ${KEY} in env files)');
});

test('the tenant and operator defaults are written once: in defaults.env', () => {
  const found = hits(RUN_CODE, new RegExp(`['"\`=](${[D.FP_TENANT, D.FP_REINDEX_TENANT, D.FP_USER].join('|')})['"\`\\s]`));
  assert.deepEqual(found, []);
});

test('a metric name is written once: in lib/metrics.js', () => {
  const names = [...Object.values(METRICS), ...Object.values(FIELDS)].filter((n) => n.includes('_'));
  const found = hits(
    JS.filter((f) => f !== 'lib/metrics.js'),
    new RegExp(`\\b(${names.join('|')})\\b`),
  );
  assert.deepEqual(found, [], 'import METRICS / FIELDS / txKey / apiKey from lib/metrics.js');
});

test('the test id rule is written once: in lib/testid.js', () => {
  const found = hits(
    RUN_CODE.filter((f) => f !== 'lib/testid.js'),
    /%Y%m%dT%H%M%SZ|toISOString\(\)\.replace\(\/\[-:\]\/g|testid\w*"?\s*=~|\.test\(\s*testid/i,
  );
  assert.deepEqual(found, [], 'use lib/testid.js (the shell: fp_testid_ok, fp_new_testid, fp_testid_stamp)');
});

test('minifolio\'s own flag defaults agree with defaults.env (its Go code does not read the file)', () => {
  const go = ['cmd_serve.go', 'cmd_up.go', 'cmd_seed.go'].map((f) => read(`minifolio/${f}`)).join('\n');
  for (const m of go.matchAll(/fs\.String\("(tenant|admin-user)", "([^"]+)"/g)) assert.equal(m[2], m[1] === 'tenant' ? D.FP_TENANT : D.FP_USER, `minifolio --${m[1]} defaults to ${m[2]}`);
  // up --port, serve's gateway port, the gateway URL modules call by default
  const ports = [...go.matchAll(/fs\.Int\("port", ([1-9]\d*)|\*port = (\d+)|"http:\/\/127\.0\.0\.1:(\d+)"/g)].map((m) => m[1] || m[2] || m[3]);
  assert.ok(ports.length >= 3 && ports.every((p) => p === D.FP_MINIFOLIO_PORT), `minifolio's gateway port defaults: ${ports}`);
});

test('another gateway port in defaults.env moves the native stack and the env files', async () => {
  const { copy } = copyRepo('fp-one-home-');
  try {
    writeFileSync(join(copy, 'defaults.env'), read('defaults.env').replace(/^FP_MINIFOLIO_PORT=.*$/m, 'FP_MINIFOLIO_PORT=19130').replace(/^FP_TENANT=.*$/m, 'FP_TENANT=fs19000000'));
    const env = { PATH: process.env.PATH, HOME: process.env.HOME };
    const sh = (script) => spawnSync('bash', ['-c', script], { cwd: copy, env, encoding: 'utf8' });
    // the native stack: what tools/run.sh and stack/ source, and the test stack derived from it
    assert.equal(sh('. tools/defaults.sh && echo "$FP_MINIFOLIO_PORT $FP_TENANT"').stdout.trim(), '19130 fs19000000');
    assert.equal(sh('FP_TEST_PORT_OFFSET=7 . tools/test-env.sh && echo $FP_MINIFOLIO_PORT').stdout.trim(), String(19130 + 100 + 7));
    // the env files k6 reads (lib/k6/run.js) and the login probe
    const { loadRun } = await import(pathToFileURL(join(copy, 'lib/k6/run.js')).href);
    const { cico } = await import(pathToFileURL(join(copy, 'lib/workflows/cico.js')).href);
    const readCopy = (p) => readFileSync(join(copy, p), 'utf8');
    const run = loadRun({ read: readCopy, env: { FOLIO_PASSWORD: 'x', FOLIO_DB_PASSWORD: 'y' }, workflow: cico, vu: 1 });
    assert.equal(run.cfg.folio.url, 'http://127.0.0.1:19130');
    assert.equal(run.cfg.folio.tenant, 'fs19000000');
    // folio-perf run's login before k6 (the same settings k6 resolves)
    const login = spawnSync('node', ['--input-type=module', '-e', "const { targetConfig } = await import('./tools/run/folio-session.mjs'); console.log(targetConfig({ FOLIO_PASSWORD: 'x' }).folio.url)"], { cwd: copy, env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(login.stdout.trim(), 'http://127.0.0.1:19130', login.stderr);
    // folio-perf run and reset seed and reset the tenant of defaults.env, not minifolio's built-in one
    const { stackDefaults } = await import(pathToFileURL(join(copy, 'tools/cli/stack-defaults.mjs')).href);
    const d = stackDefaults(env);
    assert.deepEqual([d.FP_TENANT, d.FP_MINIFOLIO_PORT], ['fs19000000', '19130']);
    assert.match(readCopy('tools/run/run.mjs'), /\['seed', '--tenant', defaults\.FP_TENANT,/);
    assert.match(readCopy('tools/run/run.mjs'), /\['reset', '--tenant', defaults\.FP_TENANT\]/);
    assert.match(readCopy('tools/cli/reset.mjs'), /\['reset', '--tenant', values\.tenant \|\| d\.FP_TENANT\]/);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
