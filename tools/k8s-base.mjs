#!/usr/bin/env node
// Writes k8s/base/ (kustomization.yaml and the two TestRuns) from the repository's files: every
// *.js under lib/ and the two workflow scripts go into ConfigMaps and into each TestRun's projected
// volume (a ConfigMap is flat, so each file is mapped to its path below /folio-perf by name).
// `make k8s-base` runs it after a file is added to or removed from lib/; test-unit-k8s fails, naming
// this command, when k8s/base/ is not what it would write.
//   node tools/k8s-base.mjs [--check]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

function jsFiles(dir) {
  return readdirSync(join(repo, dir), { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => e.name)
    .sort();
}

// ConfigMap -> the directory its keys come from (and are mounted at).
export function groups() {
  const libDirs = ['lib', ...readdirSync(join(repo, 'lib'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `lib/${e.name}`).sort()];
  const out = libDirs.map((d) => ({ name: `folio-perf-${d.replace(/\//g, '-')}`, dir: d, files: jsFiles(d) })).filter((g) => g.files.length);
  out.push({ name: 'folio-perf-scripts', dir: 'scripts', files: ['check-in-check-out.js', 'mod-search.js'] });
  return out;
}

export function kustomization(gs) {
  const k = [
    "# folio-perf's workflows as k6-operator TestRuns (k8s/README.md). Written by tools/k8s-base.mjs",
    '# (make k8s-base): the scripts, lib/ and thresholds.json travel as ConfigMaps of the repository\'s',
    '# own files, so a TestRun runs exactly the checked-out code; an overlay adds the target (its env',
    '# file and settings) and the InfluxDB address. Build with files outside k8s/ allowed:',
    '#   bin/kustomize build --load-restrictor LoadRestrictionsNone k8s/overlays/<name>',
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources:',
    '  - testrun-cico.yaml',
    '  - testrun-search.yaml',
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
    '      - K6_ENV=target',
    '      - TARGET=change-me',
    '      - RELEASE=change-me',
    '      - TESTID=change-me',
    '      - PROFILE=smoke',
    '      - INFLUX_URL=http://influxdb:8086',
    '      - K6_NO_USAGE_REPORT=true',
  );
  return `${k.join('\n')}\n`;
}

function secretEnv(name) {
  return [`      - name: ${name}`, '        valueFrom:', '          secretKeyRef:', '            name: folio-perf-secrets', `            key: ${name}`];
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
    "            # The target's env file (env/<K6_ENV>.json), from the overlay.",
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

export function baseFiles() {
  const gs = groups();
  return {
    'kustomization.yaml': kustomization(gs),
    'testrun-cico.yaml': testRun(gs, {
      name: 'folio-perf-cico',
      workflow: 'cico',
      script: 'check-in-check-out.js',
      head: [
        '# Check-in/check-out (scripts/check-in-check-out.js) split over `parallelism` k6 pods. Every pod',
        "# selects its test data from FOLIO's database (DATA=db in the env file) and keeps only the items",
        '# and patrons of its execution segment (lib/segments.js), so runners never collide; each pod\'s',
        "# teardown checks in only its own segment's loans. The verdict over all pods' samples:",
        '#   node tools/folio-perf.mjs verdict <TESTID> --influx <InfluxDB URL>',
      ],
      env: secretEnv('FOLIO_DB_PASSWORD'),
    }),
    'testrun-search.yaml': testRun(gs, {
      name: 'folio-perf-search',
      workflow: 'search',
      script: 'mod-search.js',
      head: [
        '# The mod-search workflow (scripts/mod-search.js) split over `parallelism` k6 pods. Each iteration',
        "# reads the query row of its number across all runners (k6's exec.scenario.iterationInTest counts",
        '# over every segment), so the pods go through the files together as one k6 would, not each from',
        '# the first row. The reindex phase\'s one VU (REINDEX_TENANT) runs in one pod only, as k6 gives',
        '# a 1-VU scenario to a single segment.',
      ],
      env: ['      - name: DATA', '        value: csv:/search-data'],
      volumes: ["      # mod-search's query files (make search-data), created apart: k8s/README.md.", '      - name: search-data', '        configMap:', '          name: folio-perf-search-data'],
      mounts: ['      - name: search-data', '        mountPath: /search-data', '        readOnly: true'],
    }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const stale = [];
  for (const [f, text] of Object.entries(baseFiles())) {
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
  if (stale.length) {
    console.error(`folio-perf: ${stale.join(', ')} out of date with lib/ and scripts/; fix: make k8s-base`);
    process.exit(1);
  }
}
