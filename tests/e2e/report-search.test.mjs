// `folio-perf report` on a real mod-search run (minifolio's mod-search on OpenSearch, tenant
// fs09000001 reindexed in the background, 1 then 2 users, both phases): the per-template cells are
// summary.json's (lib/search/summary.js), the Total and "over 700 ms" columns agree with the samples
// in InfluxDB, each phase has its own step window, and the charts are drawn per template group.
// Needs OpenSearch on FP_OPENSEARCH_PORT (the search stack); without it the suite fails, naming the fix.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repo, env, influxQuery, run, mdTable, folioPerf } from './helpers.mjs';

const testid = `e2e-report-search-${Date.now()}`;
const dir = join(repo, 'results', testid);
let summary;
let md;


before(async () => {
  const os = `http://127.0.0.1:${env('FP_OPENSEARCH_PORT')}`;
  const up = await fetch(`${os}/_cluster/health`).then((r) => r.ok, () => false);
  assert.ok(up, `OpenSearch is not answering at ${os}; fix: start the search stack (stack/stack.sh up search) before this suite`);
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { WORKFLOW: 'search', PROFILE: 'smoke', VUS: '1,2', DURATION: '20s', MINIFOLIO_PROFILE: 'fast', TESTID: testid, REINDEX_TENANT: 'fs09000001', REINDEX_POLL: '1s', SEED_ITEMS: '3000', SEED_USERS: '100', SEED_LOANS: '100' },
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
      assert.equal(cells[6], r.p95.toFixed(3));
      assert.equal(cells[9], r.avg.toFixed(3));
      assert.equal(Number(cells[10]), slow.get(r.name) || 0, `${r.name}: over 700 ms = InfluxDB's search_slow_requests`);
    }
  }
});

test('group averages, phases and the reindex are in the report; charts per group', () => {
  const avg = mdTable(md, 'Group averages').rows;
  assert.equal(avg.length, 4);
  assert.equal(avg[0][5], String(summary.tables.searchSteps[0].total));
  assert.ok(md.includes('**1 user: baseline vs under reindex'));
  const re = mdTable(md, 'Background reindex of fs09000001').rows;
  assert.ok(re.length >= 1 && /completed/.test(re[0][2]), JSON.stringify(re));
  const html = readFileSync(join(dir, 'report.html'), 'utf8');
  assert.match(html, /Response time per group/);
  const groups = new Set(summary.tables.searchSteps[0].rows.map((r) => r.group));
  const rt = html.slice(html.indexOf('Response time per group'));
  const drawn = [...rt.slice(0, rt.indexOf('</svg>')).matchAll(/data-series="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(new Set(drawn), groups);
});
