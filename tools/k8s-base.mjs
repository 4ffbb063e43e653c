#!/usr/bin/env node
// Writes k8s/base/ (kustomization.yaml and one TestRun per workflow, testrun-<name>.yaml) from the
// repository's files: every *.js under lib/ and each workflow's script go into ConfigMaps and into
// each TestRun's projected volume (a ConfigMap is flat, so each file is mapped to its path below
// /folio-perf by name). The workflows, their scripts and what their pods need beyond the common
// (secrets, settings, volumes: the `k8s` of tools/report/workflows/<name>.mjs) come from the
// registry (tools/workflows.mjs). `make k8s-base` runs it after a file is added to or removed from
// lib/ or a workflow is added; test-unit-k8s fails, naming this command, when k8s/base/ is not what
// it would write.
//   node tools/k8s-base.mjs [--check]
import { readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join, dirname, basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO, workflowNames, scriptPath, tools } from './workflows.mjs';
import { STORED_METRICS } from '../lib/metrics.js';

const repo = REPO;

function jsFiles(dir) {
  return readdirSync(join(repo, dir), { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => e.name)
    .sort();
}

// ConfigMap -> the directory its keys come from (and are mounted at). scripts: the workflows'
// entry scripts (file names under scripts/).
export function groups(scripts) {
  // lib/ and every directory below it (lib/cico/releases/ too), one ConfigMap each.
  const dirs = (d) => [d, ...readdirSync(join(repo, d), { withFileTypes: true }).filter((e) => e.isDirectory()).flatMap((e) => dirs(`${d}/${e.name}`))];
  const libDirs = ['lib', ...dirs('lib').slice(1).sort()];
  const out = libDirs.map((d) => ({ name: `folio-perf-${d.replace(/\//g, '-')}`, dir: d, files: jsFiles(d) })).filter((g) => g.files.length);
  out.push({ name: 'folio-perf-scripts', dir: 'scripts', files: [...scripts].sort() });
  return out;
}

export function kustomization(gs, names) {
  const k = [
    "# folio-perf's workflows as k6-operator TestRuns (k8s/README.md). Written by tools/k8s-base.mjs",
    '# (make k8s-base): the scripts, lib/ and thresholds.json travel as ConfigMaps of the repository\'s',
    '# own files, so a TestRun runs exactly the checked-out code; an overlay adds the target (its env',
    '# file and settings) and the InfluxDB address. Build with files outside k8s/ allowed:',
    '#   bin/kustomize build --load-restrictor LoadRestrictionsNone k8s/overlays/<name>',
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources:',
    ...names.map((n) => `  - testrun-${n}.yaml`),
    'generatorOptions:',
    '  # Fixed names: the TestRuns (a custom resource) refer to them, and kustomize rewrites hashed',
    '  # names only in the built-in kinds it knows.',
    '  disableNameSuffixHash: true',
    'configMapGenerator:',
  ];
  for (const g of gs) {
    k.push(`  - name: ${g.name}`, '    files:');
    for (const f of g.files) k.push(`      - ../../${g.dir}/${f}`);
  }
  k.push(
    '  - name: folio-perf-thresholds',
    '    files:',
    '      - ../../thresholds.json',
    '  # The run\'s settings, the variables of the command line (docs/settings.md); an overlay',
    '  # merges its own. TESTID must be one value for every runner: a new one per run.',
    '  - name: folio-perf-settings',
    '    literals:',
    '      - FOLIO_ENV=target',
    '      - TARGET=change-me',
    '      - RELEASE=change-me',
    '      - TESTID=change-me',
    '      - PROFILE=smoke',
    '      - INFLUX_URL=http://influxdb:8086',
    '      - K6_NO_USAGE_REPORT=true',
    '      # What reaches InfluxDB: the metrics the dashboards, report and verdict read (lib/metrics.js).',
    `      - K6_INFLUXDB_METRICS=${STORED_METRICS.join(',')}`,
  );
  return `${k.join('\n')}\n`;
}

function secretEnv(name) {
  return [`      - name: ${name}`, '        valueFrom:', '          secretKeyRef:', '            name: folio-perf-secrets', `            key: ${name}`];
}

// A key the Secret may leave out (an InfluxDB without auth has no credentials).
function optionalSecretEnv(name) {
  return [...secretEnv(name), '            optional: true'];
}

function pod(gs, { env, volumes, mounts }) {
  const p = [
    '    image: folio-perf/k6:local',
    '    env:',
    "      # The runner's own tag instance=<pod name> (the operator adds instance_id=<n> as well).",
    '      - name: POD_NAME',
    '        valueFrom:',
    '          fieldRef:',
    '            fieldPath: metadata.name',
    '      # Passwords only from the Secret folio-perf-secrets, created apart (k8s/README.md), never here.',
    ...secretEnv('FOLIO_PASSWORD'),
    '      # InfluxDB credentials when it has auth enabled (the output reads them; INFLUX_URL has none).',
    ...optionalSecretEnv('K6_INFLUXDB_USERNAME'),
    ...optionalSecretEnv('K6_INFLUXDB_PASSWORD'),
    ...env,
    '    envFrom:',
    '      - configMapRef:',
    '          name: folio-perf-settings',
    '    volumes:',
    '      - name: folio-perf',
    '        projected:',
    '          sources:',
  ];
  for (const g of gs) {
    p.push('            - configMap:', `                name: ${g.name}`, '                items:');
    for (const f of g.files) p.push(`                  - key: ${f}`, `                    path: ${g.dir}/${f}`);
  }
  p.push(
    '            - configMap:',
    '                name: folio-perf-thresholds',
    '                items:',
    '                  - key: thresholds.json',
    '                    path: thresholds.json',
    "            # The target's env file (env/<FOLIO_ENV>.json), from the overlay.",
    '            - configMap:',
    '                name: folio-perf-target',
    '                items:',
    '                  - key: target.json',
    '                    path: env/target.json',
    ...volumes,
    '    volumeMounts:',
    '      - name: folio-perf',
    '        mountPath: /folio-perf',
    '        readOnly: true',
    ...mounts,
  );
  return p;
}

// What a workflow's pods need beyond the common (its tools module's `k8s`): secrets (names of
// the Secret folio-perf-secrets' keys), plain settings, ConfigMap volumes ({name, configMap,
// mountPath, why}).
export function podExtras({ secrets = [], env = {}, volumes = [] } = {}) {
  return {
    env: [...secrets.flatMap(secretEnv), ...Object.entries(env).flatMap(([k, v]) => [`      - name: ${k}`, `        value: ${v}`])],
    volumes: volumes.flatMap((v) => [`      # ${v.why}`, `      - name: ${v.name}`, '        configMap:', `          name: ${v.configMap}`]),
    mounts: volumes.flatMap((v) => [`      - name: ${v.name}`, `        mountPath: ${v.mountPath}`, '        readOnly: true']),
  };
}

export function testRun(gs, { name, workflow, script, head, env = [], volumes = [], mounts = [] }) {
  const spec = pod(gs, { env, volumes, mounts });
  return `${[
    ...head,
    'apiVersion: k6.io/v1alpha1',
    'kind: TestRun',
    'metadata:',
    `  name: ${name}`,
    '  labels:',
    '    app.kubernetes.io/part-of: folio-perf',
    `    folio-perf/workflow: ${workflow}`,
    'spec:',
    '  # Runners, each on execution segment (i-1)/N:i/N of the same plan (the operator passes',
    "  # --execution-segment and --execution-segment-sequence); k6 splits the profile's VUs among them.",
    '  parallelism: 2',
    '  script:',
    `    localFile: /folio-perf/scripts/${script}`,
    "  # Exact argv (no shell); Kubernetes expands $(VAR) from the container's environment. The",
    '  # operator adds --tag instance_id=<n> --tag testrun_name=<name>, and k6 lets command-line tags',
    "  # replace the script's options.tags as a whole (go.k6.io/k6 lib/options.go, Apply): so the",
    '  # run-wide tags are given here too.',
    '  args:',
    '    - --tag',
    '    - testid=$(TESTID)',
    '    - --tag',
    `    - workflow=${workflow}`,
    '    - --tag',
    '    - release=$(RELEASE)',
    '    - --tag',
    '    - target=$(TARGET)',
    '    - --tag',
    '    - instance=$(POD_NAME)',
    '    - --out',
    '    - influxdb-lp=$(INFLUX_URL)/k6',
    '  runner:',
    ...spec,
    "  # The operator's initializer runs `k6 inspect` and `k6 archive` on the script: it needs the",
    '  # same files and settings.',
    '  initializer:',
    ...spec,
  ].join('\n')}\n`;
}

// Each workflow's TestRun inputs: its script (a file of scripts/) and its tools module's `k8s`.
async function workflowRuns() {
  const runs = [];
  for (const n of workflowNames()) {
    const script = await scriptPath(n);
    if (relative(join(repo, 'scripts'), script) !== basename(script)) throw new Error(`workflow ${n}'s script ${script} is not under ${repo}/scripts/; fix: a TestRun carries the repository's scripts/ only`);
    const k8s = (await tools(n)).k8s;
    if (!k8s || !Array.isArray(k8s.head)) throw new Error(`tools/report/workflows/${n}.mjs exports no k8s.head; fix: describe the workflow's TestRun there (see cico.mjs)`);
    runs.push({ name: n, script: basename(script), k8s });
  }
  return runs;
}

/** The ConfigMaps every TestRun mounts (what a pod finds under /folio-perf). */
export async function baseGroups() {
  return groups((await workflowRuns()).map((r) => r.script));
}

/** k8s/base/'s files from the repository and the workflows' registry (tools/workflows.mjs). */
export async function baseFiles() {
  const runs = await workflowRuns();
  const names = runs.map((r) => r.name);
  const gs = groups(runs.map((r) => r.script));
  const files = { 'kustomization.yaml': kustomization(gs, names) };
  for (const r of runs) files[`testrun-${r.name}.yaml`] = testRun(gs, { name: `folio-perf-${r.name}`, workflow: r.name, script: r.script, head: r.k8s.head, ...podExtras(r.k8s) });
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const stale = [];
  let files;
  try {
    files = await baseFiles();
  } catch (e) {
    console.error(`folio-perf: ${e.message}`);
    process.exit(1);
  }
  for (const [f, text] of Object.entries(files)) {
    const path = join(repo, 'k8s', 'base', f);
    let old = null;
    try {
      old = readFileSync(path, 'utf8');
    } catch {
      // written below
    }
    if (old === text) continue;
    if (check) stale.push(`k8s/base/${f}`);
    else writeFileSync(path, text);
  }
  // A TestRun of a workflow that is no longer registered.
  for (const f of readdirSync(join(repo, 'k8s', 'base')).filter((x) => /^testrun-.*\.yaml$/.test(x) && !(x in files))) {
    if (check) stale.push(`k8s/base/${f}`);
    else rmSync(join(repo, 'k8s', 'base', f));
  }
  if (stale.length) {
    console.error(`folio-perf: ${stale.join(', ')} out of date with lib/ and scripts/; fix: make k8s-base`);
    process.exit(1);
  }
}
