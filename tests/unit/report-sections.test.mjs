// The report's tables from recorded k6 summaries (tests/unit/fixtures: a CICO and a mod-search
// run recorded with the project's k6): every cell is the summary's number, formatted; module rows,
// the interrupted-run note and the comparison's verdicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { summaryDocument as cicoDoc } from '../../lib/cico/summary.js';
import { summaryDocument as searchDoc } from '../../lib/search/summary.js';
import { TEMPLATES } from '../../lib/search/templates.js';
import * as cicoTools from '../../tools/report/workflows/cico.mjs';
import * as searchTools from '../../tools/report/workflows/search.mjs';
import { errorsBlock } from '../../tools/report/sections-errors.mjs';
import { moduleRows, MIN_GROWTH_SPAN_MS } from '../../tools/report/sections-modules.mjs';
import { buildReport } from '../../tools/report/build.mjs';
import { buildComparison } from '../../tools/report/compare.mjs';
import { renderMarkdown } from '../../tools/report/render-md.mjs';

const fixture = (f) => JSON.parse(readFileSync(new URL(`./fixtures/${f}`, import.meta.url), 'utf8'));
const cico = cicoDoc(fixture('k6-summary-data.json'), { testid: 'cico-t', workflow: 'cico', release: 'fast', target: 'local', profile: 'smoke', steps: [1, 5], stepDuration: '30s' });
const templates = TEMPLATES.map((t) => ({ name: t.name, group: t.group, kind: t.kind }));
const search = searchDoc(fixture('search-summary-data.json'), { testid: 'search-t', workflow: 'search', release: 'minifolio', target: 'local', profile: 'smoke', tenant: 'fs09000000', reindexTenant: 'fs09000001', steps: [1], phases: ['baseline', 'reindex'], stepSeconds: 60, templates });
const block = (section, id) => section.blocks.find((b) => b.id === id);
// A workflow's section of the report as build.mjs assembles it: its tables, then the errors.
const cicoSection = (summary, errors) => ({ blocks: [...cicoTools.blocks(summary), errorsBlock(errors)] });
const searchSection = (summary, errors) => ({ blocks: [...searchTools.blocks(summary), errorsBlock(errors)] });

test('CICO response-time table: one row per user count and transaction, each cell the summary\'s seconds', () => {
  const s = cicoSection(cico, []);
  const rt = block(s, 'cico-response-times');
  assert.equal(rt.rows.length, cico.tables.responseTimes.length * 2);
  assert.equal(rt.columns.length, rt.rows[0].length);
  for (const r of cico.tables.responseTimes) {
    for (const t of ['check-in', 'check-out']) {
      const row = rt.rows[rt.keys.indexOf(`${r.vus}|${t}`)];
      assert.deepEqual(row.slice(0, 2), [String(r.vus), t]);
      // the fixture's times are tenths of a second: three decimals, as the release reports write them
      assert.deepEqual(row.slice(2, 6), ['avg', 'p50', 'p75', 'p95'].map((k) => r[t][k].toFixed(3)));
      assert.equal(row[6], String(r[t].count));
    }
  }
});

test('one unit per table, and no cell that rounds to 0.001 s: a fast target\'s seconds get more decimals, the whole table alike', () => {
  const fast = cicoTools.responseTimeBlock([{ vus: 1, 'check-in': { avg: 0.0043, p50: 0.004, p75: 0.0051, p95: 0.0123, count: 9 }, 'check-out': { avg: 0.61, p50: 0.6, p75: 0.7, p95: 1.2, count: 9 } }]);
  assert.deepEqual(fast.rows[0].slice(2, 6), ['0.0043', '0.0040', '0.0051', '0.0123']);
  assert.deepEqual(fast.rows[1].slice(2, 6), ['0.6100', '0.6000', '0.7000', '1.2000']);
  for (const r of fast.rows) for (const c of r.slice(2, 6)) assert.ok(!/^0\.00[01]$/.test(c), c);
  // APIs in milliseconds; search templates too (their summary keeps seconds)
  assert.match(block(cicoSection(cico, []), 'cico-slow-apis').caption, /milliseconds/);
  const st = block(searchSection(search, []), `search-${search.tables.searchSteps[0].vus}-${search.tables.searchSteps[0].phase}`);
  assert.match(st.caption, /milliseconds/);
  assert.equal(st.rows[0][9], (search.tables.searchSteps[0].rows[0].avg * 1000).toFixed(1));
});

test('CICO slow-API table and errors: the summary\'s slow APIs in ms; errors sorted by count', () => {
  const s = cicoSection(cico, [{ name: 'GET /a', status: '500', requests: 2 }, { name: 'POST /b', status: '422', requests: 9 }]);
  const slow = block(s, 'cico-slow-apis');
  assert.equal(slow.rows.length, cico.tables.slowApis.length);
  assert.ok(slow.rows.length > 0, 'the fixture has a slow API');
  assert.deepEqual(slow.rows[0].slice(0, 3), [cico.tables.slowApis[0].name, String(cico.tables.slowApis[0].vus), cico.tables.slowApis[0].p75.toFixed(1)]);
  assert.deepEqual(block(s, 'errors').rows, [['POST /b', '422', '9'], ['GET /a', '500', '2']]);
  assert.deepEqual(block(cicoSection(cico, []), 'errors').rows, []);
});

test('mod-search tables are lib/search/summary.js\'s own, row for row: template stats, averages, >700 ms, phases, reindex', () => {
  const s = searchSection(search, []);
  const steps = search.tables.searchSteps;
  assert.ok(steps.length >= 1);
  for (const st of steps) {
    const b = block(s, `search-${st.vus}-${st.phase}`);
    assert.equal(b.rows.length, st.rows.length);
    for (const [i, r] of st.rows.entries()) {
      assert.deepEqual([b.rows[i][0], b.rows[i][1], b.rows[i][5], b.rows[i][9], b.rows[i][10]], [r.name, String(r.total), (r.p75 * 1000).toFixed(1), (r.avg * 1000).toFixed(1), String(r.slow)]);
    }
  }
  const avg = block(s, 'search-averages');
  assert.equal(avg.rows.length, steps.length);
  assert.equal(avg.rows[0][5], String(steps[0].total));
  assert.equal(avg.rows[0][7], String(steps[0].slow));
  // the fixture's recorded run has both phases and a slow template
  assert.ok(steps.some((st) => st.slow > 0), 'a request over 700 ms recorded');
  assert.equal(s.blocks.filter((b) => b.id.startsWith('search-phases-')).length, search.tables.phaseComparison.length);
  assert.equal(block(s, 'search-reindex').rows.length, search.tables.reindex.length);
});

test('module rows: per step and module; growth per hour only over a step long enough', () => {
  const from = 0;
  const stats = [{ module: 'mod-users', cpu_avg: 5, cpu_min: 1, cpu_max: 9, mem_avg: 100, mem_max: 120 }];
  const mem = Array.from({ length: 61 }, (_, i) => [i * 20_000, 1000 + i * 10]); // +10 per 20 s = +1800 per hour
  const long = moduleRows([{ vus: 5, fromMs: from, toMs: MIN_GROWTH_SPAN_MS, stats, memPoints: { 'mod-users': mem } }]);
  assert.equal(long.length, 1);
  assert.ok(Math.abs(long[0].growthPerHour - 1800) < 1e-6);
  assert.equal(long[0].cpuMin, 1);
  const short = moduleRows([{ vus: 5, fromMs: 0, toMs: 60_000, stats, memPoints: { 'mod-users': mem.slice(0, 4) } }]);
  assert.equal(short[0].growthPerHour, null);
});

const gathered = (over = {}) => ({
  steps: [{ vus: 1, fromMs: 0, toMs: 30_000 }],
  fromMs: 0,
  toMs: 30_000,
  intervalS: 1,
  errors: [],
  seriesTag: 'transaction',
  responseTime: [{ name: 'check-in', avg: [[0, 1]], p95: [[0, 2], [1000, 3]] }],
  throughput: [{ name: 'check-in', points: [[0, 1]] }],
  moduleSteps: [{ vus: 1, fromMs: 0, toMs: 30_000, stats: [{ module: 'okapi', cpu_avg: 10, cpu_min: 5, cpu_max: 20, mem_avg: 2e7, mem_max: 3e7 }], memPoints: {} }],
  modules: [{ module: 'okapi', cpu: [[0, 10]], mem: [[0, 2e7]] }],
  queries: [{ id: 'errors', text: 'SELECT 1' }],
  ...over,
});

test('an interrupted run (fewer steps with samples than planned) says so at the top and reports what exists', () => {
  const doc = buildReport(cico, gathered(), cicoTools);
  assert.match(doc.notes[0], /interrupted: 1 of 2 steps/);
  const md = renderMarkdown(doc);
  assert.match(md, /Module versions: not recorded \(summary\.json has no record/);
  assert.match(md, /\| okapi \| 1 \| 10\.0 \| 5\.0–20\.0 \|/);
  assert.equal(buildReport(cico, gathered({ steps: [{ vus: 1, fromMs: 0, toMs: 1 }, { vus: 5, fromMs: 2, toMs: 3 }] }), cicoTools).notes.length, 0);
});

test('the Setup section describes the release from the record taken at the run\'s start, not from the target', () => {
  const record = {
    capturedAt: '2026-11-24T10:30:00.000Z',
    platform: 'Okapi',
    gateway: 'okapi 4.13.2',
    modulesSource: 'GET /_/proxy/tenants/fs09000000/modules',
    modules: [{ id: 'mod-users-18.2.0', name: 'mod-users', version: '18.2.0' }, { id: 'okapi-4.13.2', name: 'okapi', version: '4.13.2' }],
    folioPerf: { commit: 'c'.repeat(40), ref: 'refs/heads/main' },
    k6: { version: '1.8.1' },
    load: { profile: 'smoke', steps: [1, 5], stepDuration: '30s', think: 'ptf' },
    data: { items: 20000, users: 2000, instances: 19000 },
    machine: { cores: 2, memoryBytes: 8 * 2 ** 30 },
    problems: [],
  };
  const doc = buildReport({ ...cico, meta: { ...cico.meta, record } }, gathered(), cicoTools);
  const setup = doc.sections.find((s) => s.id === 'setup');
  const kv = Object.fromEntries(setup.blocks.find((b) => b.id === 'setup').rows);
  assert.equal(kv.Platform, 'Okapi');
  assert.equal(kv.Gateway, 'okapi 4.13.2');
  assert.equal(kv['folio-perf commit'], `${'c'.repeat(12)} (main)`);
  assert.equal(kv.k6, '1.8.1');
  assert.equal(kv['Data: items'], '20000');
  assert.equal(kv['Data: instances'], '19000');
  assert.equal(kv['Machine (k6)'], '2 cores, 8.0 GiB');
  const versions = setup.blocks.find((b) => b.id === 'module-versions');
  assert.deepEqual(versions.rows, [['mod-users', '18.2.0'], ['okapi', '4.13.2']]);
  assert.match(versions.caption, /announced by the target at the run's start, 2026-11-24T10:30:00\.000Z/);
  // Eureka: each module's application beside it
  const eureka = { ...record, platform: 'Eureka', modules: [{ id: 'mod-users-19.4.4', name: 'mod-users', version: '19.4.4', application: 'app-platform-minimal-2.0.19' }], applications: [{ id: 'app-platform-minimal-2.0.19' }] };
  const e = buildReport({ ...cico, meta: { ...cico.meta, record: eureka } }, gathered(), cicoTools).sections.find((s) => s.id === 'setup').blocks.find((b) => b.id === 'module-versions');
  assert.deepEqual(e.rows, [['mod-users', '19.4.4', 'app-platform-minimal-2.0.19']]);
});

test('comparison: a slower B is "regressed" with Δ % and times better below 1; the same run is within noise', () => {
  const slower = structuredClone(cico);
  for (const r of slower.tables.responseTimes) for (const t of ['check-in', 'check-out']) for (const s of ['avg', 'p50', 'p75', 'p95']) r[t][s] *= 3;
  const rules = { transactions: { tolerance: 0.25, slackMs: 75 }, apis: { tolerance: 0.5, slackMs: 50 } };
  const doc = buildComparison(cico, slower, gathered(), gathered(), rules, cicoTools);
  const rt = doc.sections[1].blocks.find((b) => b.id === 'cmp-response-times');
  const p95 = rt.rows.find((r) => r[0] === '5 users, check-out p95');
  assert.deepEqual(p95.slice(3), ['+200.0%', '0.33x', 'regressed']);
  const back = buildComparison(slower, cico, gathered(), gathered(), rules, cicoTools).sections[1].blocks[0].rows.find((r) => r[0] === '5 users, check-out p95');
  assert.deepEqual(back.slice(3), ['-66.7%', '3.00x', 'improved']);
  const same = buildComparison(cico, cico, gathered(), gathered(), rules, cicoTools).sections[1].blocks[0];
  assert.ok(same.rows.every((r) => r[5] === 'within noise'));
  // 1 user check-in avg 0.2 s x 3 = 0.6 s: +200 % but 0.6 > 0.2 x 1.25 + 0.075, regressed
  assert.equal(rt.rows.find((r) => r[0] === '1 user, check-in avg')[5], 'regressed');
});

test('a whole search report from the recorded search summary: its tables, steps per phase, charts per group', () => {
  const data = gathered({
    steps: [{ vus: 1, phase: 'baseline', fromMs: 0, toMs: 60_000 }, { vus: 1, phase: 'reindex', fromMs: 70_000, toMs: 130_000 }],
    toMs: 130_000,
    seriesTag: 'group',
    responseTime: [{ name: 'title', avg: [], p95: [[0, 5], [1000, 6]] }, { name: 'authority', avg: [], p95: [[0, 3], [1000, 4]] }],
    throughput: [{ name: 'title', points: [[0, 1], [1000, 2]] }],
    moduleSteps: [
      { vus: 1, phase: 'baseline', fromMs: 0, toMs: 60_000, stats: [{ module: 'mod-search', cpu_avg: 10, cpu_min: 1, cpu_max: 30, mem_avg: 5e7, mem_max: 6e7 }], memPoints: {} },
      { vus: 1, phase: 'reindex', fromMs: 70_000, toMs: 130_000, stats: [{ module: 'mod-search', cpu_avg: 40, cpu_min: 5, cpu_max: 90, mem_avg: 7e7, mem_max: 8e7 }], memPoints: {} },
    ],
  });
  const doc = buildReport(search, data, searchTools);
  assert.deepEqual(doc.notes, [], 'both phases of the one user count ran');
  // findings first; no Longevity for a run that changes its load; charts beside their sections
  assert.deepEqual(doc.sections.map((s) => s.title), ['Summary', 'Verdict', 'Setup', 'mod-search', 'Modules']);
  const md = renderMarkdown(doc);
  assert.match(md, /\| 1 \| reindex \| 1970-01-01T00:01:10Z \|/);
  assert.match(md, /\| mod-search \| 1 \(reindex\) \| 40\.0 \| 5\.0–90\.0 \|/);
  const first = search.tables.searchSteps[0].rows[0];
  assert.ok(md.includes(`| ${first.name} | ${first.total} |`), 'the first template row');
  const svg = doc.sections[3].blocks.find((b) => b.type === 'charts').items[0].svg;
  assert.match(svg, /Response time per group/);
  assert.equal((svg.match(/class="series"/g) || []).length, 2);
  assert.match(svg, /1 user, reindex/);
  // a search run missing its reindex phase is reported as interrupted
  assert.match(buildReport(search, gathered({ steps: [data.steps[0]], seriesTag: 'group' }), searchTools).notes[0], /1 of 2 steps/);
});
