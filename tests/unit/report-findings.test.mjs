// The Summary's rules (tools/report/findings.mjs, and each workflow's in tools/report/workflows/),
// one by one: what each finds, the row it cites, and what it says when it cannot judge. Then whole
// reports from the recorded k6 summaries (tests/unit/fixtures), alone, against a slower previous
// release and against a baseline file: every number of every finding is in the row it cites
// (tests/summary-check.mjs reads the Markdown as a wiki reader would), a failed threshold comes
// first, and the findings are in the order the first screen needs (pass, regress, worst API).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { summaryDocument as cicoDoc } from '../../lib/cico/summary.js';
import { summaryDocument as searchDoc } from '../../lib/search/summary.js';
import { TEMPLATES } from '../../lib/search/templates.js';
import * as cicoTools from '../../tools/report/workflows/cico.mjs';
import * as searchTools from '../../tools/report/workflows/search.mjs';
import { buildReport } from '../../tools/report/build.mjs';
import { renderMarkdown } from '../../tools/report/render-md.mjs';
import { againstRules } from '../../tools/report/against.mjs';
import * as F from '../../tools/report/findings.mjs';
import { tablesById } from '../../tools/report/doc.mjs';
import { checkSummary, summaryItems, numbersOf } from '../summary-check.mjs';

const fixture = (f) => JSON.parse(readFileSync(new URL(`./fixtures/${f}`, import.meta.url), 'utf8'));
const cico = cicoDoc(fixture('k6-summary-data.json'), { testid: 'cico-t', workflow: 'cico', release: 'fast', target: 'local', profile: 'smoke', steps: [1, 5], stepDuration: '30s' });
const templates = TEMPLATES.map((t) => ({ name: t.name, group: t.group, kind: t.kind }));
const search = searchDoc(fixture('search-summary-data.json'), { testid: 'search-t', workflow: 'search', release: 'minifolio', target: 'local', profile: 'smoke', tenant: 'fs09000000', reindexTenant: 'fs09000001', steps: [1], phases: ['baseline', 'reindex'], stepSeconds: 60, templates });
const rules = againstRules({ transactions: { tolerance: 0.25, slackMs: 75 }, apis: { tolerance: 0.5, slackMs: 50 } });

const MiB = 1048576;
const stats = (module, cpu, mem = 100 * MiB) => ({ module, cpu_avg: cpu, cpu_min: cpu / 2, cpu_max: cpu * 2, mem_avg: mem, mem_max: mem * 1.2 });
// gather()'s data of a two-step CICO run: modules at 5 users, connections, database files.
const data = (over = {}) => ({
  steps: [{ vus: 1, fromMs: 0, toMs: 300_000 }, { vus: 5, fromMs: 301_000, toMs: 600_000 }],
  fromMs: 0,
  toMs: 600_000,
  intervalS: 5,
  errors: [],
  seriesTag: 'transaction',
  responseTime: [],
  throughput: [],
  moduleSteps: [
    { vus: 1, fromMs: 0, toMs: 300_000, stats: [stats('okapi', 5), stats('mod-circulation', 8), stats('postgres', 10)], memPoints: {} },
    { vus: 5, fromMs: 301_000, toMs: 600_000, stats: [stats('okapi', 12.5), stats('mod-circulation', 31.25), stats('postgres', 40), stats('influxdb', 90)], memPoints: {} },
  ],
  modules: [
    { module: 'mod-circulation', cpu: [], mem: Array.from({ length: 61 }, (_, i) => [i * 10_000, (100 + i) * MiB]) },
    { module: 'okapi', cpu: [], mem: Array.from({ length: 61 }, (_, i) => [i * 10_000, 50 * MiB]) },
  ],
  connections: [{ vus: 1, phase: null, avg: 10, max: 12 }, { vus: 5, phase: null, avg: 25, max: 30 }],
  db: {
    statements: [{ queryid: '7', query: 'INSERT INTO fs09000000_mod_circulation_storage.loan (id, jsonb) VALUES ($1, $2)', calls: 40, totalMs: 123.4, meanMs: 3.1, rows: 40 }],
    withoutIndex: { 'mod-circulation-storage': 12, 'mod-users': 0 },
    withoutIndexFields: { 'mod-circulation-storage': { userId: 12 } },
    withoutIndexSource: 'index-lines-{start,end}.json',
  },
  longevity: { kind: 'thirds', periods: [] },
  queries: [],
  ...over,
});
const searchData = (over = {}) =>
  data({
    steps: [{ vus: 1, phase: 'baseline', fromMs: 0, toMs: 60_000 }, { vus: 1, phase: 'reindex', fromMs: 61_000, toMs: 120_000 }],
    seriesTag: 'group',
    moduleSteps: [{ vus: 1, phase: 'reindex', fromMs: 61_000, toMs: 120_000, stats: [stats('mod-search', 70), stats('postgres', 20)], memPoints: {} }],
    ...over,
  });

// The findings of a report, by rule id, and the report's tables.
function report(summary, d, wf, opts) {
  const doc = buildReport(summary, d, wf, opts);
  const items = doc.sections[0].blocks[0].items;
  const by = (id) => items.filter((i) => i.rule === id);
  return { doc, items, by, md: renderMarkdown(doc), t: tablesById(doc) };
}
// A slower previous release: every CICO time x 0.7 (so this run is +42.9 %).
function previous(factor = 0.7) {
  const s = structuredClone(cico);
  s.meta = { ...s.meta, release: 'lotus', testid: 'cico-lotus' };
  for (const r of s.tables.responseTimes) for (const t of ['check-in', 'check-out']) for (const k of ['avg', 'p50', 'p75', 'p95']) r[t][k] *= factor;
  return s;
}

test('SLO verdict: FAILED with the count first, then each failed threshold with the figure k6 judged; passed; none set', () => {
  const { by } = report(cico, data(), cicoTools);
  const slo = by('slo');
  assert.equal(slo[0].text, '**FAILED**: SLO thresholds, 3 of 10 failed');
  assert.deepEqual([slo[0].table, slo[0].row], ['verdict', 'slo']);
  assert.equal(slo.length, 4);
  assert.equal(slo[1].text, 'Threshold failed: `transaction_duration{transaction:check-in}` `p(95)<1500`, measured 3750.0 ms');
  assert.equal(slo[1].table, 'thresholds');
  const passed = { ...cico, thresholds: cico.thresholds.map((t) => ({ ...t, ok: true })) };
  assert.deepEqual(report(passed, data(), cicoTools).by('slo').map((f) => f.text), ['**passed**: SLO thresholds, 10 of 10 held']);
  assert.match(report({ ...cico, thresholds: [] }, data(), cicoTools).by('slo')[0].cannot, /set no threshold/);
});

test('regression verdict: not judged without a previous release (and says how to give one); against one, the tally and the largest regression', () => {
  assert.match(report(cico, data(), cicoTools).by('regression')[0].cannot, /no previous release given \(report cico-t --against <testid\|baseline>\)/);
  const gated = report({ ...cico, meta: { ...cico.meta, baseline: 'baselines/minifolio-fast.json' } }, data(), cicoTools).by('regression')[0];
  assert.match(gated.cannot, /gated against baselines\/minifolio-fast\.json, whose limits are among the thresholds/);
  const r = report(cico, data(), cicoTools, { against: { summary: previous(), data: data() }, rules }).by('regression');
  assert.equal(r[0].text, '**regressed** against `lotus`: 3 of 17 compared rows regressed, 0 improved');
  assert.match(r[1].text, /^Largest regression: Response times: (avg|p50|p75|p95) \d+\.\d+ against \d+\.\d+ in `lotus` \(\+42\.9%\)$/);
  assert.equal(r[1].table, 'cico-response-times');
  // the same run against itself: nothing regressed
  assert.equal(report(cico, data(), cicoTools, { against: { summary: cico, data: data() }, rules }).by('regression')[0].text, '**no regression** against `cico-t`: 0 of 17 compared rows regressed, 0 improved');
});

test('worst API: the highest p95 with the most users; the APIs table sorts it first', () => {
  const { by, t } = report(cico, data(), cicoTools);
  const w = by('worst-api')[0];
  assert.equal(w.text, 'Worst API (highest p95 with the most users): `GET /automated-patron-blocks/{id}`, 154.0 ms');
  assert.equal(w.row, 'GET /automated-patron-blocks/{id}');
  const apis = t.get('cico-apis');
  assert.ok(apis.values.every((v, i) => i === 0 || (v[3] ?? -1) <= apis.values[0][3]), 'first row has the highest p95');
  assert.match(report({ ...cico, k6: { metrics: {} } }, data(), cicoTools).by('worst-api')[0].cannot, /no per-API figures/);
});

test('transactions: each at the most users; against a previous release "X % slower than <release>", per PTF', () => {
  const alone = report(cico, data(), cicoTools).by('transactions');
  assert.deepEqual(alone.map((f) => f.text), ['`check-in` at 5 users: avg 2.200 s, p95 3.820 s', '`check-out` at 5 users: avg 5.250 s, p95 9.525 s']);
  const vs = report(cico, data(), cicoTools, { against: { summary: previous(), data: data() }, rules }).by('transactions');
  assert.equal(vs[0].text, '`check-in` at 5 users: avg 2.200 s, 42.9% slower than `lotus` (1.540 s); p95 +42.9%');
  const faster = report(cico, data(), cicoTools, { against: { summary: previous(2), data: data() }, rules }).by('transactions');
  assert.match(faster[0].text, /50\.0% faster than `lotus`/);
  assert.match(report({ ...cico, tables: { responseTimes: [], slowApis: [] } }, data(), cicoTools).by('transactions')[0].cannot, /no completed transaction/);
});

test('slow APIs: over the 100 ms line at the most users; none over it says so for the whole table', () => {
  assert.deepEqual(report(cico, data(), cicoTools).by('slow-apis').map((f) => [f.text, f.row]), [['`GET /automated-patron-blocks/{id}` over the slow line at 5 users: p75 153.1 ms', 'GET /automated-patron-blocks/{id}|5']]);
  const none = report({ ...cico, tables: { ...cico.tables, slowApis: [] } }, data(), cicoTools).by('slow-apis')[0];
  assert.equal(none.text, "No API's p75 exceeded 100 ms at any user count");
  assert.equal(none.row, undefined);
});

test('API growth with users: the largest p75 growth from the fewest users to the most; one user count cannot judge it', () => {
  assert.equal(report(cico, data(), cicoTools).by('api-growth')[0].text, '`GET /groups`: p75 grew +38.5% from the fewest users to the most, the most of any API');
  const one = structuredClone(cico);
  for (const k of Object.keys(one.k6.metrics)) if (/vus:1[,}]/.test(k)) delete one.k6.metrics[k];
  assert.match(report(one, data(), cicoTools).by('api-growth')[0].cannot, /one user count/);
});

test('errors: the API and status that failed most; none', () => {
  const e = report(cico, data({ errors: [{ name: 'POST /circulation/check-out-by-barcode', status: '422', requests: 12 }, { name: 'GET /users', status: '500', requests: 2 }] }), cicoTools).by('errors')[0];
  assert.equal(e.text, 'Errors: `POST /circulation/check-out-by-barcode` answered 422 to 12 requests, the most of any API and status');
  assert.equal(report(cico, data(), cicoTools).by('errors')[0].text, 'No request failed');
});

test('modules: top CPU at the most users leaves out PostgreSQL and InfluxDB; the database\'s CPU on its own; not collected', () => {
  const { by } = report(cico, data(), cicoTools);
  assert.equal(by('top-cpu')[0].text, 'Top CPU at 5 users: `mod-circulation`, 31.3 % of one core on average');
  assert.equal(by('database-cpu')[0].text, 'Database (`postgres`) CPU at 5 users: 40.0 % of one core on average');
  const vs = report(cico, data(), cicoTools, { against: { summary: previous(), data: data({ moduleSteps: data().moduleSteps.map((s) => ({ ...s, stats: s.stats.map((x) => ({ ...x, cpu_avg: x.cpu_avg / 2 })) })) }) }, rules }).by('database-cpu')[0];
  assert.equal(vs.text, 'Database (`postgres`) CPU at 5 users: 40.0 % of one core on average, +100.0% against `lotus` (20.0 %)');
  const none = report(cico, data({ moduleSteps: [] }), cicoTools);
  assert.match(none.by('top-cpu')[0].cannot, /no module CPU collected/);
  assert.match(none.by('database-cpu')[0].cannot, /PostgreSQL's CPU was not collected/);
});

test('memory: the leak verdict per module; too short a window cannot judge', () => {
  const m = report(cico, data(), cicoTools).by('memory');
  assert.equal(m.length, 1);
  assert.match(m[0].text, /^`mod-circulation` leaks memory: \+\d+\.\d MiB\/h, \+\d+\.\d% over the judged window$/);
  const flat = report(cico, data({ modules: [{ module: 'okapi', cpu: [], mem: data().modules[1].mem }] }), cicoTools).by('memory')[0];
  assert.equal(flat.text, 'No module leaks memory by the leak rule, and none grew');
  // a slow creep under the rule's bounds: no leak, and the module that grew most named with its row
  const creep = Array.from({ length: 61 }, (_, i) => [i * 10_000, (100 + i * 0.01) * MiB]);
  const grew = report(cico, data({ modules: [{ module: 'mod-users', cpu: [], mem: creep }, data().modules[1]] }), cicoTools).by('memory')[0];
  assert.match(grew.text, /^No module leaks memory by the leak rule; the most growth: `mod-users` \+\d+\.\d MiB\/h \(\+\d+\.\d% of its average per hour, R² 1\.00\)$/);
  assert.equal(grew.row, 'mod-users');
  const short = report(cico, data({ steps: [{ vus: 1, fromMs: 0, toMs: 60_000 }], modules: [{ module: 'okapi', cpu: [], mem: [[0, 1], [60_000, 2]] }] }), cicoTools).by('memory')[0];
  assert.match(short.cannot, /too short for the leak rule/);
});

test('database: top statement, without-index warnings with their fields, connections\' growth; what is missing', () => {
  const { by } = report(cico, data(), cicoTools);
  assert.equal(by('top-statement')[0].text, 'Top statement by total time: 123.4 ms in 40 calls, mean 3.10 ms: `INSERT INTO fs09000000_mod_circulation_storage.loan (id, jsonb) VALUE…`');
  assert.equal(by('without-index')[0].text, '`mod-circulation-storage` logged 12 "without index" warnings, on userId (12)');
  assert.equal(by('connections')[0].text, 'Database connections at 5 users: 25.0 on average, +150.0% from the first step');
  const bare = report(cico, data({ db: { statements: null, withoutIndex: null }, connections: [{ vus: 5, phase: null, avg: 9, max: 9 }] }), cicoTools);
  assert.match(bare.by('top-statement')[0].cannot, /no pg_stat_statements snapshots/);
  assert.match(bare.by('without-index')[0].cannot, /--module-logs/);
  assert.match(bare.by('connections')[0].cannot, /one user count/);
  const clean = report(cico, data({ db: { ...data().db, withoutIndex: { 'mod-users': 0 } } }), cicoTools).by('without-index')[0];
  assert.equal(clean.text, "No module logged RMB's without-index warning");
});

test('longevity: only a constant load of 30 minutes or more is judged; the stepped demo run says why not', () => {
  assert.match(report(cico, data(), cicoTools).by('longevity')[0].cannot, /changes its load \(2 steps: 1, 5\)/);
  const long = data({
    steps: [{ vus: 20, fromMs: 0, toMs: 3_600_000 }],
    longevity: { kind: 'thirds', periods: ['first third', 'middle third', 'last third'].map((label, i) => ({ label, rows: [{ name: 'check-out', avg: 900, p95: 1000 * (1 + i / 10), n: 100 }, { name: 'check-in', avg: 500, p95: 600, n: 100 }] })) },
  });
  const r = report(cico, long, cicoTools);
  assert.equal(r.by('longevity')[0].text, '`check-out`: p95 +20.0% from the first period to the last');
  assert.ok(r.doc.sections.some((s) => s.id === 'longevity'));
  assert.ok(!report(cico, data(), cicoTools).doc.sections.some((s) => s.id === 'longevity'), 'no Longevity section for a stepped run');
});

test('search: the worst request, the slowest group, the cost of the reindex per group; no reindex phase cannot judge it', () => {
  const { by } = report(search, searchData(), searchTools);
  assert.equal(by('worst-template')[0].text, 'Worst request (highest p95 with the most users, baseline): `GET /search/instances: title all *1randomword`, 753.5 ms');
  assert.equal(by('slowest-group')[0].text, 'Slowest group at 1 user: `title`, average 377.0 ms');
  assert.match(by('reindex-cost')[0].text, /^Reindex cost at 1 user: `title` \+0\.0%, no group was slower under reindex; the largest change \(average 377\.0 ms, 377\.0 ms under reindex\)$/);
  const baseOnly = structuredClone(search);
  baseOnly.tables.searchSteps = baseOnly.tables.searchSteps.filter((st) => st.phase === 'baseline');
  assert.match(report(baseOnly, searchData({ steps: [searchData().steps[0]] }), searchTools).by('reindex-cost')[0].cannot, /no reindex phase/);
});

const otherCounts = data({
  steps: [{ vus: 1, fromMs: 0, toMs: 300_000 }, { vus: 8, fromMs: 301_000, toMs: 600_000 }],
  moduleSteps: data().moduleSteps.map((s, i) => (i === 1 ? { ...s, vus: 8 } : s)),
  connections: [{ vus: 1, phase: null, avg: 10, max: 12 }, { vus: 8, phase: null, avg: 40, max: 44 }],
});

test('against a run of other user counts: findings read this run\'s rows, never the previous release\'s own', () => {
  const r = report(cico, data(), cicoTools, { against: { summary: previous(), data: otherCounts }, rules });
  assert.equal(r.by('connections')[0].text, 'Database connections at 5 users: 25.0 on average, +150.0% from the first step');
  assert.equal(r.by('connections')[0].row, '5');
  assert.equal(r.by('top-cpu')[0].row, 'mod-circulation|5');
  assert.equal(r.t.get('db-connections').rows.at(-1).at(-1), 'only in A');
});

test('whole reports: every number of every finding is in the row it cites (CICO, search, against a run, against a baseline file)', () => {
  const baseline = JSON.parse(readFileSync(new URL('../../baselines/minifolio-fast.json', import.meta.url), 'utf8'));
  const regression = { transactions: { stats: ['p(95)'], tolerance: 0.25, slackMs: 75 }, apis: { stats: ['p(95)'], tolerance: 0.5, slackMs: 50, names: null } };
  const cases = {
    cico: report(cico, data(), cicoTools),
    search: report(search, searchData(), searchTools),
    'cico against lotus': report(cico, data(), cicoTools, { against: { summary: previous(), data: data() }, rules }),
    'search against itself': report(search, searchData(), searchTools, { against: { summary: search, data: searchData() }, rules }),
    'cico against a baseline': report(cico, data(), cicoTools, { against: { baseline, name: 'minifolio-fast', regression }, rules }),
    // the previous release ran other user counts: its rows come after this run's, "only in A"
    'cico against a run of other user counts': report(cico, data(), cicoTools, { against: { summary: previous(), data: otherCounts }, rules }),
  };
  for (const [name, r] of Object.entries(cases)) {
    const items = checkSummary(r.md);
    assert.ok(items.filter((i) => !i.cannot).length >= 5, `${name}: findings`);
    // first the pass verdict, then the regression verdict, then the worst API/request
    const rules_ = r.items.map((i) => i.rule);
    assert.deepEqual(rules_.slice(0, 1), ['slo'], name);
    const firstRegression = rules_.indexOf('regression');
    const worst = rules_.findIndex((x) => x.startsWith('worst'));
    assert.ok(firstRegression > 0 && worst > firstRegression, `${name}: ${rules_.join(', ')}`);
  }
  const b = cases['cico against a baseline'];
  assert.match(b.by('regression')[0].text, /against `minifolio-fast`: \d+ of \d+ compared rows regressed/);
  assert.ok(b.t.get('baseline-comparison').rows.length >= 2);
});

test('the checker itself: a number not in the cited row fails; code spans and stat names are not figures', () => {
  assert.deepEqual(numbersOf('`GET /a/1` p95 1.234 s, +12.0% at 20 users (R² 0.9)'), ['1.234', '12.0', '20', '0.9']);
  const md = renderMarkdown(buildReport(cico, data(), cicoTools));
  const broken = md.replace('avg 2.200 s, p95 3.820 s', 'avg 2.201 s, p95 3.820 s');
  assert.throws(() => checkSummary(broken), /2\.201 is not in its row/);
  assert.equal(summaryItems(md)[0].table, 1);
});
