// `folio-perf report` on a real mod-search run (minifolio's mod-search on OpenSearch, tenant
// fs09000001 reindexed in the background, 1 then 2 users, both phases): the per-template cells are
// summary.json's (lib/search/summary.js), the Total and "over 700 ms" columns agree with the samples
// in InfluxDB, each phase has its own step window, the charts are drawn per template group, and the
// Summary's findings (worst request, slowest group, the reindex's cost) each hold the numbers of
// the row they cite.
// Needs OpenSearch on FP_OPENSEARCH_PORT (the search stack); without it the suite fails, naming the fix.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repo, env, influxQuery, run, mdTable, folioPerf } from './helpers.mjs';
import { checkSummary } from '../summary-check.mjs';

const testid = `e2e-report-search-${Date.now()}`;
const dir = join(repo, 'results', testid);
let summary;
let md;


before(async () => {
  const os = `http://127.0.0.1:${env('FP_OPENSEARCH_PORT')}`;
  const up = await fetch(`${os}/_cluster/health`).then((r) => r.ok, () => false);
  assert.ok(up, `OpenSearch is not answering at ${os}; fix: start the search stack (stack/stack.sh up search) before this suite`);
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { WORKFLOW: 'search', PROFILE: 'smoke', VUS: '1,2', DURATION: '20s', MINIFOLIO_PROFILE: 'fast', TESTID: testid, REINDEX_TENANT: 'fs09000001', REINDEX_POLL: '1s' },
    timeoutMs: 420_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const rep = folioPerf(['report', testid]);
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  md = readFileSync(join(dir, 'report.md'), 'utf8');
});

test('one step window per user count and phase', () => {
  const { rows } = mdTable(md, 'User-count steps');
  assert.deepEqual(rows.map((r) => `${r[0]} ${r[1]}`), ['1 baseline', '1 reindex', '2 baseline', '2 reindex']);
});

test('per-template tables: summary.json\'s cells; Total and >700 ms recomputed from InfluxDB', async () => {
  const steps = summary.tables.searchSteps;
  assert.equal(steps.length, 4);
  for (const st of steps) {
    const { rows } = mdTable(md, `${st.vus} user${st.vus === 1 ? '' : 's'}, ${st.phase === 'reindex' ? 'under reindex' : 'baseline'} (`);
    assert.equal(rows.length, st.rows.length);
    const counts = new Map((await influxQuery(`SELECT count("value") FROM "http_req_duration" WHERE "testid" = '${testid}' AND "vus" = '${st.vus}' AND "phase" = '${st.phase}' GROUP BY "name"`)).map((s) => [s.tags.name, s.values[0][1]]));
    const slow = new Map((await influxQuery(`SELECT sum("value") FROM "search_slow_requests" WHERE "testid" = '${testid}' AND "vus" = '${st.vus}' AND "phase" = '${st.phase}' GROUP BY "name"`)).map((s) => [s.tags.name, s.values[0][1]]));
    // a sample of rows: first, middle, last
    for (const i of [0, Math.floor(st.rows.length / 2), st.rows.length - 1]) {
      const r = st.rows[i];
      const cells = rows.find((x) => x[0] === r.name.replace(/\|/g, '\\|').replace(/&/g, '&amp;').replace(/</g, '&lt;'));
      assert.ok(cells, `row ${r.name}`);
      assert.equal(cells[1], String(r.total));
      assert.equal(Number(cells[1]), counts.get(r.name), `${r.name}: Total = InfluxDB's count`);
      // milliseconds in the report, seconds in summary.json (the mod-search report's unit)
      assert.equal(cells[6], (r.p95 * 1000).toFixed(1));
      assert.equal(cells[9], (r.avg * 1000).toFixed(1));
      assert.equal(Number(cells[10]), slow.get(r.name) || 0, `${r.name}: over 700 ms = InfluxDB's search_slow_requests`);
    }
  }
});

test('group averages, phases and the reindex are in the report; charts per group', () => {
  const avg = mdTable(md, 'Group averages').rows;
  assert.equal(avg.length, 4);
  assert.equal(avg[0][5], String(summary.tables.searchSteps[0].total));
  assert.ok(mdTable(md, '1 user: baseline vs under reindex').rows.length > 0);
  const re = mdTable(md, 'Background reindex of fs09000001').rows;
  assert.ok(re.length >= 1 && /completed/.test(re[0][2]), JSON.stringify(re));
  const html = readFileSync(join(dir, 'report.html'), 'utf8');
  assert.match(html, /Response time per group/);
  const groups = new Set(summary.tables.searchSteps[0].rows.map((r) => r.group));
  const rt = html.slice(html.indexOf('Response time per group'));
  const drawn = [...rt.slice(0, rt.indexOf('</svg>')).matchAll(/data-series="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(new Set(drawn), groups);
});

test('the Summary: worst request, slowest group and the reindex\'s cost, each number in the row it cites; the record of a search run', () => {
  const items = checkSummary(md);
  const text = items.map((i) => i.text).join('\n');
  assert.match(text, /^Worst request \(highest p95 with the most users, baseline\): `GET \/search\//m);
  assert.match(text, /^Slowest group at 2 users: `\w+`, average \d+\.\d ms$/m);
  assert.match(text, /^Reindex cost at 2 users: `\w+` [+-]\d+\.\d%/m);
  assert.ok(items.some((i) => i.cannot && /Longevity: the run changes its load \(4 steps/.test(i.text)));
  // the groups table the last two cite: each group's average is its templates' weighed by requests
  const groups = mdTable(md, 'Template groups').rows;
  const st = summary.tables.searchSteps.find((x) => x.vus === 2 && x.phase === 'baseline');
  for (const g of new Set(st.rows.map((r) => r.group))) {
    const rows = st.rows.filter((r) => r.group === g && r.total > 0);
    const n = rows.reduce((a, r) => a + r.total, 0);
    const row = groups.find((x) => x[0] === g && x[1] === '2');
    assert.equal(row[3], ((rows.reduce((a, r) => a + r.avg * r.total, 0) / n) * 1000).toFixed(1), g);
  }
  assert.equal(summary.meta.record.platform, 'Okapi');
  assert.ok(summary.meta.record.modules.some((m) => m.name === 'mod-search'), 'mod-search among the modules the target announced');
});
