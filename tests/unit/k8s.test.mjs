// k8s/: every overlay builds with kustomize and its TestRuns validate against the TestRun CRD of the
// pinned k6-operator release (converted by k8s/crd2schema, checked by kubeconform -strict); the
// manifests carry the whole of lib/ and the scripts, passwords only by Secret reference, and the
// run-wide tags on every runner; broken manifests are rejected. Run by `make test-unit-k8s`, which
// installs the pinned kustomize and kubeconform into bin/.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workflowNames, scriptPath } from '../../tools/workflows.mjs';
import { STORED_METRICS } from '../../lib/metrics.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (n) => join(process.env.FP_BIN || join(repo, 'bin'), n);
const version = process.env.K6_OPERATOR_VERSION || 'v1.6.0';
const crdDir = join(repo, 'k8s', 'crd', `k6-operator-${version}`);
const tmp = mkdtempSync(join(tmpdir(), 'fp-k8s-'));
const schemas = join(tmp, 'schemas');
const overlays = readdirSync(join(repo, 'k8s', 'overlays'));
// One TestRun per workflow of the registry, each carrying that workflow's script.
const workflows = workflowNames();
const scripts = Object.fromEntries(await Promise.all(workflows.map(async (n) => [`folio-perf-${n}`, (await scriptPath(n)).slice(repo.length + 1)])));

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 180_000, ...opts });
  if (r.error) throw r.error;
  return r;
}
const build = (dir) => sh(bin('kustomize'), ['build', '--load-restrictor', 'LoadRestrictionsNone', dir]);
const conform = (file) =>
  sh(bin('kubeconform'), ['-strict', '-summary', '-skip', 'ConfigMap', '-schema-location', `${schemas}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json`, file]);

// kustomize writes YAML, which node has no parser for: the checks read it as text, which kustomize
// lays out the same way every time (sorted keys, two-space indents, documents split by ---).
function documents(yaml) {
  return yaml.split(/^---$/m).map((d) => d.trim()).filter(Boolean);
}
const kindOf = (doc) => /^kind: (\S+)/m.exec(doc)[1];
const nameOf = (doc) => /^metadata:\n(?:  .*\n)*?  name: (\S+)/m.exec(doc)[1];

before(() => {
  const digest = createHash('sha256').update(readFileSync(join(crdDir, 'k6.io_testruns.yaml'))).digest('hex');
  assert.match(readFileSync(join(crdDir, 'SOURCE'), 'utf8'), new RegExp(`sha256\\s+${digest}`), 'the CRD is the release file named in SOURCE, unedited');
  const r = sh('go', ['run', '.', '-out', schemas, join(crdDir, 'k6.io_testruns.yaml')], { cwd: join(repo, 'k8s', 'crd2schema') });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('k8s/base/ is what tools/k8s-base.mjs writes from lib/ and scripts/ today', () => {
  const r = sh('node', [join(repo, 'tools', 'k8s-base.mjs'), '--check']);
  assert.equal(r.status, 0, r.stderr);
});

test('there are overlays for targets and InfluxDB addresses', () => {
  assert.ok(overlays.length >= 2, `overlays: ${overlays}`);
});

const built = {};
for (const overlay of overlays) {
  test(`overlay ${overlay}: kustomize builds it and kubeconform validates its TestRuns against the ${version} CRD`, () => {
    const r = build(join(repo, 'k8s', 'overlays', overlay));
    assert.equal(r.status, 0, r.stderr);
    const file = join(tmp, `${overlay}.yaml`);
    writeFileSync(file, r.stdout);
    const c = conform(file);
    assert.equal(c.status, 0, c.stdout + c.stderr);
    const docs = documents(r.stdout);
    const runs = docs.filter((d) => kindOf(d) === 'TestRun');
    assert.match(c.stdout, new RegExp(`Valid: ${runs.length}, Invalid: 0, Errors: 0, Skipped: ${docs.length - runs.length}`));
    assert.deepEqual(runs.map(nameOf).sort(), workflows.map((n) => `folio-perf-${n}`).sort());
    built[overlay] = { yaml: r.stdout, docs, runs };
  });
}

test('every TestRun carries the whole of lib/ and its script, from ConfigMaps of the repository files', () => {
  const { yaml, runs } = built[overlays[0]];
  const want = [];
  const walk = (d) => {
    for (const e of readdirSync(join(repo, d), { withFileTypes: true })) {
      if (e.isDirectory()) walk(`${d}/${e.name}`);
      else if (e.name.endsWith('.js')) want.push(`${d}/${e.name}`);
    }
  };
  walk('lib');
  want.push(...Object.values(scripts), 'thresholds.json', 'env/target.json');
  for (const run of runs) {
    const paths = [...run.matchAll(/^ +path: (\S+)$/gm)].map((m) => m[1]);
    // runner and initializer each mount the same files.
    for (const p of want) assert.equal(paths.filter((x) => x === p).length, 2, `${nameOf(run)} mounts ${p} in runner and initializer`);
    assert.ok(run.split('\n').includes(`    localFile: /folio-perf/${scripts[nameOf(run)]}`), `${nameOf(run)} runs its own script`);
  }
  // A ConfigMap value is the file's text; spot-check that kustomize took the repository's files.
  for (const f of ['lib/segments.js', 'lib/k6/run.js', ...Object.values(scripts)]) {
    const firstLine = readFileSync(join(repo, f), 'utf8').split('\n')[0];
    assert.ok(yaml.includes(firstLine), `${f} is in a ConfigMap`);
  }
});

test('passwords only by Secret reference; run-wide tags and one InfluxDB for every runner', () => {
  for (const overlay of overlays) {
    const { yaml, docs, runs } = built[overlay];
    assert.ok(!docs.some((d) => kindOf(d) === 'Secret'), 'no Secret in the manifests: it is created apart');
    // No password in the run's settings, the target's file or a TestRun (the code ConfigMaps name
    // the variables in their comments, which is fine).
    for (const d of docs.filter((x) => ['folio-perf-settings', 'folio-perf-target'].includes(nameOf(x)) || kindOf(x) === 'TestRun')) {
      assert.doesNotMatch(d, /PASSWORD[=:]|PASSWORD\n\s+value:|"password"/i, `no password value in ${nameOf(d)}`);
    }
    for (const run of runs) {
      assert.equal((run.match(/name: FOLIO_PASSWORD\n\s+valueFrom:\n\s+secretKeyRef:/g) || []).length, 2, 'runner and initializer read FOLIO_PASSWORD from the Secret');
      for (const tag of ['testid=$(TESTID)', 'release=$(RELEASE)', 'target=$(TARGET)', 'instance=$(POD_NAME)']) assert.ok(run.includes(`- ${tag}`), `${nameOf(run)}: --tag ${tag}`);
      assert.ok(run.includes('- influxdb-lp=$(INFLUX_URL)/k6'));
      // InfluxDB's credentials: from the Secret (optional keys), never in INFLUX_URL or the arguments
      for (const k of ['K6_INFLUXDB_USERNAME', 'K6_INFLUXDB_PASSWORD']) {
        assert.equal((run.match(new RegExp(`name: ${k}\\n\\s+valueFrom:\\n\\s+secretKeyRef:`, 'g')) || []).length, 2, `${k} from the Secret`);
      }
      assert.equal((run.match(/optional: true/g) || []).length, 4, 'keys an InfluxDB without auth leaves out of the Secret');
      assert.match(run, /parallelism: [2-9]/);
    }
    assert.match(yaml, /INFLUX_URL: http/);
    assert.match(yaml, new RegExp(`K6_INFLUXDB_METRICS: ${STORED_METRICS.join(',')}\\n`), 'the runners write what the readers read');
    assert.doesNotMatch(/INFLUX_URL: (\S+)/.exec(yaml)[1], /@/, 'no credentials in INFLUX_URL (a ConfigMap, and k6\'s argv)');
  }
  // The overlays differ in what they are for: the target and the InfluxDB address.
  const influx = overlays.map((o) => /INFLUX_URL: (\S+)/.exec(built[o].yaml)[1]);
  const url = overlays.map((o) => /"url": "([^"]+)"/.exec(built[o].yaml)[1]);
  assert.equal(new Set(influx).size, overlays.length, influx.join(' '));
  assert.equal(new Set(url).size, overlays.length, url.join(' '));
});

test('broken manifests are rejected by the CRD schema', () => {
  const base = built[overlays[0]].yaml;
  const cases = [
    ['parallelism is not a number', base.replace(/parallelism: \d+/, 'parallelism: two'), /parallelism.*got string, want integer/],
    ['a misspelt field', base.replace(/^  runner:$/m, '  runnner:'), /additional properties 'runnner' not allowed/],
    ['no script', base.replace(/^  script:\n    localFile: \S+\n/m, ''), /missing propert(y|ies) 'script'|'script'/],
  ];
  for (const [what, text, why] of cases) {
    assert.notEqual(text, base, `${what}: the mutation applied`);
    const f = join(tmp, 'broken.yaml');
    writeFileSync(f, text);
    const c = conform(f);
    assert.equal(c.status, 1, `${what}: ${c.stdout}`);
    assert.match(c.stdout, why, what);
  }
});
