// A third workflow is its own files and nothing else: this test copies the repository's code to a
// scratch directory, adds a workflow "fixture" there as a newcomer would (a descriptor, its pure
// summary module, its entry script, its tools module, its dashboard module; its thresholds in a
// THRESHOLDS file of its own), and follows it through every layer that must know every workflow:
// the k6 run's configuration, the report, the comparison, the merged summary of split runs, the
// k8s TestRuns, the dashboards, make's run dependencies and the switch check. No file that was
// there before may change, except the generated k8s/base/ (its kustomization lists the TestRuns,
// whose ConfigMaps carry every file of lib/, the fixture's too). It also checks that an unknown or incomplete workflow fails with one line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { copyRepo } from './repo-copy.mjs';

let copy = null;
const inCopy = (...p) => join(copy, ...p);
const load = (rel) => import(pathToFileURL(inCopy(rel)).href);

// The fixture workflow's files, in the layout every workflow has.
const FILES = {
  'lib/workflows/fixture.js': `// A workflow that exists only in this test: 1 and 2 users requesting one API.
import { describeConfig } from '../config.js';
import { METRICS } from '../metrics.js';
export const fixture = {
  name: 'fixture',
  script: 'scripts/fixture.js',
  profiles: { smoke: { steps: [1, 2], duration: '30s', gracefulStop: '5s', think: 'none', about: '1 and 2 VUs x 30 s' } },
  phases: null,
  config: { noData: true },
  baselines: false,
  report: '../fixture/summary.js',
  settings: () => ({}),
  thresholdInputs: (run) => ({ vus: [], transactions: [], apiNames: [], extra: run.profile.steps.map((v) => [\`\${METRICS.httpDuration}{vus:\${v}}\`, 'max>=0']) }),
  describe: (run) => \`\${describeConfig(run.cfg)} profile=\${run.profile.name}\`,
};
`,
  'lib/fixture/summary.js': `// The fixture's end-of-run table: p95 per user count.
import { parseMetricKey } from '../baseline.js';
import { METRICS, TAGS } from '../metrics.js';
import { footerLines, summaryDocument as document } from '../summary.js';
export { summaryPath } from '../summary.js';
export function steps(data) {
  const out = [];
  for (const [key, m] of Object.entries(data.metrics || {})) {
    const { metric, tags } = parseMetricKey(key);
    if (metric === METRICS.httpDuration && tags[TAGS.vus] && Object.keys(tags).length === 1) out.push({ vus: Number(tags[TAGS.vus]), p95: m.values['p(95)'] / 1000 });
  }
  return out.sort((a, b) => a.vus - b.vus);
}
export const renderText = (data, meta) => [\`fixture run \${meta.testid}\`, ...footerLines(data, meta)].join('\\n') + '\\n';
export const summaryDocument = (data, meta) => document(data, meta, { steps: steps(data) });
`,
  'scripts/fixture.js': `// The fixture workflow's entry script (loaded by k6 only).
import { loadRun } from '../lib/k6/run.js';
import { fixture } from '../lib/workflows/fixture.js';
const run = loadRun({ read: (p) => open(import.meta.resolve(\`../\${p}\`)), env: __ENV, workflow: fixture, vu: __VU });
export const options = run.options;
export default function () {}
`,
  'tools/report/workflows/fixture.mjs': `// The fixture workflow in the Node tools.
import { METRICS, TAGS } from '../../../lib/metrics.js';
import { summaryDocument } from '../../../lib/fixture/summary.js';
import { COLUMNS, row } from '../compare-tables.mjs';
export const title = 'Fixture requests';
export const series = { measurement: METRICS.httpDuration, tag: TAGS.name, unit: 'fixture requests/s' };
export const needs = ['fixture-data'];
export const expectedSteps = (meta) => (meta.steps || []).length;
export const blocks = (summary) => [{ type: 'table', id: 'fixture-steps', caption: 'p95 per user count (s)', columns: [{ label: 'Users' }, { label: 'p95', align: 'r' }], rows: summary.tables.steps.map((r) => [String(r.vus), r.p95.toFixed(3)]), source: 'summary.json tables.steps' }];
export function compareBlocks(a, b, rules) {
  const rows = a.tables.steps.map((r) => row(\`\${r.vus} users p95\`, r.p95, b.tables.steps.find((x) => x.vus === r.vus)?.p95 ?? null, rules.transactions));
  return [{ type: 'table', id: 'cmp-fixture', caption: 'p95', columns: COLUMNS('Users'), rows, source: 'summary.json of A and B' }];
}
export const summarize = (data, meta) => summaryDocument(data, meta);
export const k8s = { head: ['# The fixture workflow (scripts/fixture.js).'], env: { DATA: 'none' } };
`,
  'dashboards/src/fixture.mjs': `// The fixture workflow's dashboard.
import { METRICS } from '../../lib/metrics.js';
import { baseDashboard, layout, releaseVariable, runFilter, runVariable, seriesTarget, timeseriesPanel } from './panels.mjs';
export const UID = 'folio-fixture';
export const FILE = 'folio-fixture.json';
export function build() {
  const dash = baseDashboard({ uid: UID, title: 'FOLIO fixture', description: 'The fixture workflow: p95 over time.' })
    .withVariable(releaseVariable())
    .withVariable(runVariable('testid', 'Run'));
  const p95 = timeseriesPanel({ title: 'p95', description: 'p95 of every request per interval.', unit: 'ms', targets: [seriesTarget('A', { select: 'percentile("value", 95)', measurement: METRICS.httpDuration, where: runFilter('testid') })] });
  return layout(dash, [{ title: 'Run', panels: [[p95, 24, 8]] }]);
}
export const DASHBOARDS = [{ UID, FILE, build }];
`,
  'fixture-thresholds.json': JSON.stringify({ workflows: { fixture: { rates: { checks: { min: 0.99 } } } } }),
};

const hash = (f) => createHash('sha256').update(readFileSync(f)).digest('hex');
let before_ = null; // path -> hash of every file copied, before the fixture is added

before(() => {
  let files;
  ({ copy, files } = copyRepo('fp-workflow-fixture-'));
  before_ = new Map(files.map((f) => [f, hash(inCopy(f))]));
  for (const [f, text] of Object.entries(FILES)) {
    mkdirSync(dirname(inCopy(f)), { recursive: true });
    writeFileSync(inCopy(f), text);
  }
});

after(() => rmSync(copy, { recursive: true, force: true }));

const node = (args, opts = {}) => spawnSync('node', args, { cwd: copy, encoding: 'utf8', ...opts });

// k6's handleSummary data of a fixture run: p95 per user count, one check.
const k6Data = (p95s) => ({
  state: { testRunDurationMs: 60_000 },
  metrics: Object.fromEntries([
    ...p95s.map((p, i) => [`http_req_duration{vus:${i + 1}}`, { type: 'trend', contains: 'time', values: { 'p(95)': p, count: 10 }, thresholds: { 'max>=0': { ok: true } } }]),
    ['checks', { type: 'rate', values: { passes: 10, fails: 0, rate: 1 }, thresholds: { 'rate>=0.99': { ok: true } } }],
  ]),
  root_group: { name: '', checks: [{ name: 'GET /x: status is 200', passes: 10, fails: 0 }], groups: [] },
});
const meta = (testid) => ({ testid, workflow: 'fixture', release: 'r1', target: 'local', profile: 'smoke', steps: [1, 2], stepDuration: '30s' });

test('the registry lists it and make learns what its run needs', async () => {
  const { workflowNames, descriptor } = await load('tools/workflows.mjs');
  assert.ok(workflowNames().includes('fixture'), workflowNames().join(' '));
  assert.equal((await descriptor('fixture')).name, 'fixture');
  const r = node(['tools/workflows.mjs', 'needs', 'fixture']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'fixture-data');
  assert.equal(node(['tools/workflows.mjs', 'script', 'fixture']).stdout.trim(), 'scripts/fixture.js');
});

test('run configuration: the k6 runner builds its scenarios, tags and thresholds from the descriptor', async () => {
  const { loadRun } = await load('lib/k6/run.js');
  const { descriptor } = await load('tools/workflows.mjs');
  const read = (p) => readFileSync(inCopy(p), 'utf8');
  const modules = { '../thresholds.js': await load('lib/thresholds.js'), '../fixture/summary.js': await load('lib/fixture/summary.js'), './record.js': await load('lib/record.js') };
  const run = loadRun({ read, env: { FOLIO_PASSWORD: 'x', THRESHOLDS: 'fixture-thresholds.json', TESTID: 'fixture-t1' }, workflow: await descriptor('fixture'), load: (p) => modules[p] });
  assert.deepEqual(Object.keys(run.options.scenarios), ['vus_1', 'vus_2']);
  assert.equal(run.options.tags.workflow, 'fixture');
  assert.deepEqual(run.options.thresholds.checks, ['rate>=0.99']);
  assert.deepEqual(run.options.thresholds['http_req_duration{vus:2}'], ['max>=0']);
  assert.match(run.report.renderText(k6Data([100, 200]), { testid: 'fixture-t1' }), /^fixture run fixture-t1\nChecks: 10\/10 passed/);
});

test('report and compare: its section, units and comparison rows come from its tools module', async () => {
  const { tools } = await load('tools/workflows.mjs');
  const { buildReport } = await load('tools/report/build.mjs');
  const { buildComparison, rulesFor } = await load('tools/report/compare.mjs');
  const wf = await tools('fixture');
  const A = wf.summarize(k6Data([100, 200]), meta('fixture-a'));
  const B = wf.summarize(k6Data([100, 600]), meta('fixture-b'));
  const data = {
    steps: [{ vus: 1, fromMs: 0, toMs: 30_000 }, { vus: 2, fromMs: 35_000, toMs: 65_000 }],
    fromMs: 0,
    toMs: 65_000,
    intervalS: 1,
    errors: [{ name: 'GET /x', status: '500', requests: 1 }],
    seriesTag: 'name',
    responseTime: [{ name: 'GET /x', avg: [], p95: [[0, 100], [1000, 120]] }],
    throughput: [{ name: 'GET /x', points: [[0, 1]] }],
    moduleSteps: [],
    modules: [],
    queries: [],
  };
  const doc = buildReport(A, data, wf);
  assert.deepEqual(doc.notes, []);
  const section = doc.sections.find((s) => s.id === 'fixture');
  assert.equal(section.title, 'Fixture requests');
  assert.deepEqual(section.blocks.map((b) => b.id || b.type), ['fixture-steps', 'errors', 'charts']);
  assert.deepEqual(section.blocks[0].rows, [['1', '0.100'], ['2', '0.200']]);
  assert.match(section.blocks[2].items[1].svg, /fixture requests\/s/);
  // the summary's common rules judge it; it brings no rule of its own
  const items = doc.sections.find((s) => s.id === 'summary').blocks[0].items;
  assert.equal(items[0].text, '**passed**: SLO thresholds, 1 of 1 held');
  assert.ok(items.some((i) => i.text === 'Errors: `GET /x` answered 500 to 1 requests'));
  const rules = rulesFor(JSON.parse(FILES['fixture-thresholds.json']), 'fixture');
  const cmp = buildComparison(A, B, data, data, rules, wf);
  const rows = cmp.sections.find((s) => s.id === 'times').blocks[0].rows;
  assert.equal(rows.find((r) => r[0] === '2 users p95')[5], 'regressed');
  assert.equal(rows.find((r) => r[0] === '1 users p95')[5], 'within noise');
});

test('merged summary of a split run: built by its own code', async () => {
  const { mergeData, summaryOf } = await load('tools/verdict/merge-summary.mjs');
  const runners = [{ k6: k6Data([100, 200]) }, { k6: k6Data([100, 200]) }];
  const data = await mergeData(runners, async () => ({ 'p(95)': 300, count: 20 }));
  const doc = await summaryOf(data, meta('fixture-m'));
  assert.equal(doc.format, 'folio-perf-summary/1');
  assert.deepEqual(doc.tables.steps, [{ vus: 1, p95: 0.3 }, { vus: 2, p95: 0.3 }]);
  assert.deepEqual(doc.checks, { passes: 20, fails: 0, failing: [] });
});

test('k8s: its TestRun is generated with its script and settings', () => {
  const r = node(['tools/k8s-base.mjs']);
  assert.equal(r.status, 0, r.stderr);
  const run = readFileSync(inCopy('k8s/base/testrun-fixture.yaml'), 'utf8');
  assert.match(run, /^# The fixture workflow \(scripts\/fixture\.js\)\./);
  assert.match(run, /folio-perf\/workflow: fixture/);
  assert.match(run, /localFile: \/folio-perf\/scripts\/fixture\.js/);
  assert.match(run, /- workflow=fixture/);
  assert.match(run, /- name: DATA\n {8}value: none/);
  assert.match(run, /path: lib\/fixture\/summary\.js/);
  assert.match(readFileSync(inCopy('k8s/base/kustomization.yaml'), 'utf8'), /- testrun-fixture\.yaml/);
  assert.equal(node(['tools/k8s-base.mjs', '--check']).status, 0);
});

test('dashboards: its dashboard is generated beside the others', async () => {
  const r = node(['dashboards/src/generate.mjs']);
  assert.equal(r.status, 0, r.stderr);
  const d = JSON.parse(readFileSync(inCopy('dashboards/generated/folio-fixture.json'), 'utf8'));
  assert.equal(d.uid, 'folio-fixture');
  const { dashboards } = await load('dashboards/src/index.mjs');
  assert.ok((await dashboards()).some((x) => x.workflow === 'fixture' && x.FILE === 'folio-fixture.json'));
});

test('no switch on its name anywhere, and no file that was there changed but the generated k8s/base/', async () => {
  const { switches } = await import('./workflow-switches.mjs');
  const files = [...before_.keys()].filter((f) => /\.(m?js|sh|mk)$/.test(f));
  assert.deepEqual(switches(files, (f) => readFileSync(inCopy(f), 'utf8'), ['fixture']), []);
  const changed = [...before_].filter(([f, h]) => hash(inCopy(f)) !== h).map(([f]) => f);
  assert.deepEqual(changed, ['k8s/base/kustomization.yaml', 'k8s/base/testrun-cico.yaml', 'k8s/base/testrun-search.yaml']);
});

test('an unknown workflow, or one missing a layer, fails with one line naming the fix', async () => {
  const r = node(['tools/workflows.mjs', 'needs', 'nope']);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^folio-perf: unknown workflow "nope"; fix: use one of .*fixture/);
  const { summaryOf } = await load('tools/verdict/merge-summary.mjs');
  await assert.rejects(summaryOf({}, { workflow: 'nope' }), /unknown workflow "nope"/);
  rmSync(inCopy('dashboards/src/fixture.mjs'));
  const g = node(['dashboards/src/generate.mjs', '--check']);
  assert.equal(g.status, 1);
  assert.match(g.stderr, /^folio-perf: workflow fixture has no dashboards\/src\/fixture\.mjs; fix: add it/);
});
