// Every panel query of every dashboard, with Grafana's variables substituted as
// Grafana would, run against the real InfluxDB (no Grafana on this machine).
//
// 1. "synthetic run": writes a small run in the metric contract's shape
//    (docs/native-stack.md) into a scratch database and checks that every variable and
//    panel query runs and returns data there. Needs FP_INFLUX_URL.
// 2. "recorded run": the same against a real run already in InfluxDB (database
//    FP_INFLUX_DB, default k6): each workflow's (registry: tools/workflows.mjs)
//    run named by FP_DASH_TESTID_<NAME>, or by the file last-<name>-testid in
//    FP_STACK_DIR that the workflow's e2e suite leaves (tools/test.sh runs that
//    suite first). The module CPU panel must show every minifolio module, okapi
//    and postgres.
// Without FP_INFLUX_URL / a recorded CICO run a test skips, unless
// FP_REQUIRE_STACK=1 (`make test`), where it fails saying what is missing.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { panelQueries, variableQueries } from '../../dashboards/src/grafana-vars.mjs';
import { hasValues, influxQuery, influxWrite } from '../../dashboards/src/influx-query.mjs';
import { dashboards as registered, OUT_DIR } from '../../dashboards/src/index.mjs';
import { workflowNames } from '../../tools/workflows.mjs';
import { repo } from './helpers.mjs';

const load = (f) => JSON.parse(readFileSync(join(repo, 'dashboards', OUT_DIR, f), 'utf8'));
// Each workflow's dashboards (its runs feed them), from the registry.
const all = await registered();
const dashboardsOf = (workflow) => all.filter((d) => d.workflow === workflow).map((d) => load(d.FILE));
const dashboards = dashboardsOf('cico');
const searchDashboards = dashboardsOf('search');

/** The test id of a recorded run of `workflow`: FP_DASH_TESTID_<NAME>, else the file its e2e suite left. */
function recordedTestid(workflow) {
  const env = process.env[`FP_DASH_TESTID_${workflow.toUpperCase().replace(/\W/g, '_')}`];
  if (env) return env;
  const f = process.env.FP_STACK_DIR ? join(process.env.FP_STACK_DIR, `last-${workflow}-testid`) : null;
  return f && existsSync(f) ? readFileSync(f, 'utf8').trim() : null;
}

/** Returns the env value (or `value` when given), or skips / fails the test when it is missing. */
function need(t, name, why, value = process.env[name]) {
  const v = value;
  if (v) return v;
  const msg = `${name} is not set (${why}); \`make test\` sets it`;
  if (process.env.FP_REQUIRE_STACK) assert.fail(msg);
  t.skip(msg);
  return null;
}

/** The minifolio module names, read from the catalog the gateway routes by. */
function minifolioModules() {
  const src = readFileSync(join(repo, 'minifolio', 'internal', 'catalog', 'catalog.go'), 'utf8');
  return [...src.matchAll(/\{Name:\s*"([^"]+)"/g)].map((m) => m[1]);
}

/** Values for every variable as a user would pick them: all releases, the run. */
function selection(testid) {
  return { release: '$__all', testid, testid_a: testid, testid_b: testid, group: '$__all' };
}

/**
 * Runs every variable and panel query of every dashboard; returns a list of
 * problems (errors, empty panels) and the module CPU series' module tags.
 */
async function checkAll(url, db, testid, fromMs, toMs, list = dashboards) {
  const problems = [];
  let cpuModules = null;
  for (const dash of list) {
    const opts = { fromMs, toMs, values: selection(testid), datasourceUid: 'folio-influxdb' };
    for (const v of variableQueries(dash, opts)) {
      const { error, series } = await influxQuery(url, db, v.query);
      if (error) problems.push(`${dash.uid} variable ${v.name}: ${error} (${v.query})`);
      else if (v.name.startsWith('testid') && !series.some((s) => s.values.some((row) => row[1] === testid))) {
        problems.push(`${dash.uid} variable ${v.name} does not list ${testid}`);
      }
    }
    for (const q of panelQueries(dash, opts)) {
      const where = `${dash.uid} panel "${q.panelTitle}" ${q.refId}`;
      assert.equal(q.datasourceUid, 'folio-influxdb', `${where}: target not on the datasource variable`);
      const { error, series } = await influxQuery(url, db, q.query);
      if (error) problems.push(`${where}: ${error} (${q.query})`);
      else if (!series.some(hasValues)) problems.push(`${where}: no data (${q.query})`);
      if (q.panelTitle === 'Module CPU' || q.panelTitle === 'mod-search and OpenSearch CPU') cpuModules = series.map((s) => s.tags?.module);
    }
  }
  return { problems, cpuModules };
}

test('synthetic run: every dashboard query runs and returns data', async (t) => {
  const url = need(t, 'FP_INFLUX_URL', 'InfluxDB to run the queries on');
  if (!url) return;
  const db = `fp_dash_${process.pid}`;
  const testid = 'cico-synthetic-20261122T000000Z';
  const modules = ['okapi', 'mod-circulation', 'postgres'];
  const end = Date.now() - 1000;
  const start = end - 120_000;
  const lines = [];
  for (let i = 0; i < 120; i++) {
    const ns = BigInt(start + i * 1000) * 1_000_000n;
    const run = `testid=${testid},release=lotus,workflow=cico,target=local,vus=${i < 60 ? 1 : 5}`;
    const api = 'name=POST\\ /circulation/check-out-by-barcode,status=201,method=POST';
    lines.push(`transaction_duration,${run},transaction=check-out value=${300 + (i % 17)} ${ns}`);
    lines.push(`transaction_duration,${run},transaction=check-in value=${200 + (i % 11)} ${ns + 1n}`);
    lines.push(`transaction_failed,${run},transaction=check-out value=0 ${ns}`);
    lines.push(`http_req_duration,${run},${api} value=${90 + (i % 30)} ${ns}`);
    lines.push(`http_reqs,${run},${api} value=1 ${ns}`);
    lines.push(`http_req_failed,${run},${api} value=${i % 40 === 0 ? 1 : 0} ${ns}`);
    lines.push(`vus,${run} value=${i < 60 ? 1 : 5} ${ns}`);
    if (i % 5 === 0) {
      for (const m of modules) lines.push(`module_stats,module=${m} cpu_percent=${5 + (i % 9)},mem_rss_bytes=${5e7 + i}i ${ns}`);
      lines.push(`postgresql,db=folio numbackends=${4 + (i % 3)}i,xact_commit=${1000 + i * 7}i ${ns}`);
    }
  }
  const created = await influxQuery(url, db, `CREATE DATABASE "${db}"`, { method: 'POST' });
  assert.equal(created.error, null, created.error);
  t.after(() => influxQuery(url, db, `DROP DATABASE "${db}"`, { method: 'POST' }));
  await influxWrite(url, db, lines);

  const { problems, cpuModules } = await checkAll(url, db, testid, start - 60_000, end + 60_000);
  assert.deepEqual(problems, []);
  assert.deepEqual([...cpuModules].sort(), [...modules].sort());

  // The substitution must select the run: another testid gives no data.
  const other = await checkAll(url, db, 'cico-no-such-run', start - 60_000, end + 60_000);
  assert.ok(other.problems.some((p) => p.includes('Check-out p95') && p.includes('no data')), other.problems.join('\n'));

  // Two runs side by side: run B of another release, check-out at 600 ms.
  const runB = 'cico-synthetic-20261122T010000Z';
  const linesB = [];
  for (let i = 0; i < 20; i++) {
    const ns = BigInt(start + i * 1000 + 500) * 1_000_000n;
    const run = `testid=${runB},release=morning-glory,workflow=cico,target=local,vus=5`;
    linesB.push(`transaction_duration,${run},transaction=check-out value=600 ${ns}`);
    linesB.push(`transaction_duration,${run},transaction=check-in value=400 ${ns + 1n}`);
    linesB.push(`http_req_duration,${run},name=POST\\ /circulation/check-out-by-barcode,status=201 value=250 ${ns}`);
  }
  await influxWrite(url, db, linesB);
  const comparison = dashboards.find((d) => d.uid === 'folio-release-comparison');
  const range = { fromMs: start - 60_000, toMs: end + 60_000, datasourceUid: 'folio-influxdb' };
  const values = { release: '$__all', testid_a: testid, testid_b: runB };
  const result = async (title, refId) => {
    const q = panelQueries(comparison, { ...range, values }).find((x) => x.panelTitle === title && x.refId === refId);
    const { error, series } = await influxQuery(url, db, q.query);
    assert.equal(error, null, error);
    return series;
  };
  const p95 = async (refId) => (await result('Check-out p95, A and B', refId))[0].values[0][1];
  assert.ok((await p95('A')) < 400, 'run A is the faster one');
  assert.equal(await p95('B'), 600);
  const apiB = await result('API p75, A vs B', 'B');
  assert.deepEqual(apiB.map((s) => [s.tags.name, s.values[0][1]]), [['POST /circulation/check-out-by-barcode', 250]]);

  // Picking one release narrows the run list to that release's runs.
  const runList = variableQueries(comparison, { ...range, values: { release: ['morning-glory'] } }).find((v) => v.name === 'testid_a');
  const listed = await influxQuery(url, db, runList.query);
  assert.deepEqual(listed.series.flatMap((s) => s.values.map((row) => row[1])), [runB]);
});

test('recorded run: every dashboard query has data, module CPU shows every module', async (t) => {
  const url = need(t, 'FP_INFLUX_URL', 'InfluxDB to run the queries on');
  if (!url) return;
  const testid = need(t, 'FP_DASH_TESTID_CICO (or last-cico-testid in FP_STACK_DIR)', 'the testid of a check-in/check-out run already in InfluxDB', recordedTestid('cico'));
  if (!testid) return;
  const db = process.env.FP_INFLUX_DB || 'k6';

  // The time range a user would pick: the run, padded so that Telegraf's
  // samples around its edges are inside.
  const edge = async (fn) => {
    const { error, series } = await influxQuery(
      url,
      db,
      `SELECT ${fn}("value") FROM "transaction_duration" WHERE "testid" = '${testid.replace(/'/g, "\\'")}'`,
    );
    assert.equal(error, null, error);
    assert.ok(series.length > 0, `no transaction_duration samples for testid ${testid} in database ${db}`);
    return series[0].values[0][0];
  };
  const fromMs = (await edge('first')) - 30_000;
  const toMs = (await edge('last')) + 30_000;

  const { problems, cpuModules } = await checkAll(url, db, testid, fromMs, toMs);
  assert.deepEqual(problems, []);
  // mod-search runs only beside OpenSearch, for the search workflow: not in a CICO run.
  const expected = ['okapi', 'postgres', ...minifolioModules().filter((m) => m !== 'mod-search')];
  const missing = expected.filter((m) => !cpuModules.includes(m));
  assert.deepEqual(missing, [], `module CPU panel lacks ${missing.join(', ')} (has ${cpuModules.join(', ')})`);
});

// ---- the mod-search dashboard ------------------------------------------------

// Line-protocol tag value: spaces, commas and equals signs escaped.
const tagValue = (v) => String(v).replace(/([ ,=])/g, '\\$1');

// A few of the report's templates, tagged as scripts/mod-search.js tags them.
const SEARCH_TEMPLATES = [
  { name: 'GET /search/instances: title all *1randomword', group: 'title', kind: 'wildcard-prefix' },
  { name: 'GET /search/instances: title all 1randomword*', group: 'title', kind: 'wildcard' },
  { name: 'GET /search/instances: keyword all 2randomwords', group: 'keyword', kind: 'regular' },
  { name: 'GET /search/authorities keyword <> random sentence', group: 'authority', kind: 'regular' },
];

/** A short search run in the metric contract's shape: both phases, a reindex window, Telegraf's side. */
function searchRunLines(testid, start) {
  const lines = [];
  let indexed = 0;
  let queries = 0;
  for (let i = 0; i < 120; i++) {
    const ms = start + i * 1000;
    const ns = BigInt(ms) * 1_000_000n;
    const phase = i < 60 ? 'baseline' : 'reindex';
    const run = `testid=${testid},release=lotus,workflow=search,target=local`;
    SEARCH_TEMPLATES.forEach((tpl, k) => {
      const tags = `${run},name=${tagValue(tpl.name)},group=${tpl.group},kind=${tpl.kind},phase=${phase},vus=1,method=GET,status=200`;
      const t = ns + BigInt(k);
      // Slower under reindex, and one request in 30 over the report's 700 ms line.
      const value = (phase === 'reindex' ? 140 : 100) + (i % 13) + (i % 30 === k ? 800 : 0);
      lines.push(`http_req_duration,${tags} value=${value} ${t}`);
      lines.push(`http_reqs,${tags} value=1 ${t}`);
      lines.push(`http_req_failed,${tags} value=0 ${t}`);
    });
    lines.push(`vus,${run} value=1 ${ns}`);
    if (i % 3 === 0 && i >= 60) {
      const running = i < 105 ? 1 : 0;
      lines.push(`reindex_running,${run},phase=reindex,vus=1,tenant=fs09000001,stage=${running ? 'instance' : 'done'} value=${running} ${ns}`);
    }
    if (i === 105) lines.push(`reindex_duration,${run},phase=reindex,vus=1,outcome=completed value=45000 ${ns}`);
    if (i % 5 === 0) {
      lines.push(`module_stats,module=mod-search cpu_percent=${10 + (i % 7)},mem_rss_bytes=${4e7 + i}i ${ns}`);
      lines.push(`module_stats,module=opensearch cpu_percent=${30 + (i % 11)},mem_rss_bytes=${9e8 + i}i ${ns}`);
      indexed += i >= 60 && i < 105 ? 5000 : 0;
      queries += 20;
      lines.push(`opensearch,cluster_name=folio-perf indexing_index_total=${indexed}i,search_query_total=${queries}i,docs_count=${10000 + indexed}i ${ns}`);
    }
  }
  return lines;
}

test('synthetic search run: every mod-search dashboard query runs and returns data', async (t) => {
  const url = need(t, 'FP_INFLUX_URL', 'InfluxDB to run the queries on');
  if (!url) return;
  const db = `fp_dash_search_${process.pid}`;
  const testid = 'search-synthetic-20261124T000000Z';
  const end = Date.now() - 1000;
  const start = end - 120_000;
  const created = await influxQuery(url, db, `CREATE DATABASE "${db}"`, { method: 'POST' });
  assert.equal(created.error, null, created.error);
  t.after(() => influxQuery(url, db, `DROP DATABASE "${db}"`, { method: 'POST' }));
  await influxWrite(url, db, searchRunLines(testid, start));
  // A CICO run in the same database must not be listed as a search run.
  await influxWrite(url, db, [`http_req_duration,testid=cico-x,workflow=cico,release=lotus,name=GET\\ /groups value=5 ${BigInt(start) * 1_000_000n}`]);

  const range = { fromMs: start - 60_000, toMs: end + 60_000, datasourceUid: 'folio-influxdb' };
  const { problems, cpuModules } = await checkAll(url, db, testid, range.fromMs, range.toMs, searchDashboards);
  assert.deepEqual(problems, []);
  assert.deepEqual([...cpuModules].sort(), ['mod-search', 'opensearch']);

  const [dash] = searchDashboards;
  const runs = variableQueries(dash, { ...range, values: selection(testid) }).find((v) => v.name === 'testid');
  const listed = (await influxQuery(url, db, runs.query)).series.flatMap((s) => s.values.map((row) => row[1]));
  assert.deepEqual(listed, [testid], 'the run list holds search runs only');

  const result = async (title, values = selection(testid)) => {
    const q = panelQueries(dash, { ...range, values }).find((x) => x.panelTitle === title);
    const { error, series } = await influxQuery(url, db, q.query);
    assert.equal(error, null, error);
    return series;
  };
  // Numbers follow from the points written above.
  assert.equal((await result('Requests over 700 ms'))[0].values[0][1], 16);
  assert.equal((await result('Reindex duration'))[0].values[0][1], 45000);
  const window = (await result('Reindex running'))[0];
  assert.equal(window.tags.tenant, 'fs09000001');
  assert.deepEqual([...new Set(window.values.map((r) => r[1]).filter((v) => v !== null))].sort(), [0, 1], 'the window opens and closes');
  const byKind = await result('Average by kind and phase');
  assert.equal(byKind.length, 6, 'three kinds × two phases');
  const avg = (kind, phase) => byKind.find((s) => s.tags.kind === kind && s.tags.phase === phase).values[0][2];
  assert.ok(avg('regular', 'reindex') > avg('regular', 'baseline'), 'under reindex is slower, as written');
  const templates = await result('Response time by template');
  assert.equal(templates.length, SEARCH_TEMPLATES.length * 2);
  // One group picked: only its templates.
  const title = await result('Response time by template', { ...selection(testid), group: ['title'] });
  assert.deepEqual([...new Set(title.map((s) => s.tags.name))].sort(), SEARCH_TEMPLATES.filter((x) => x.group === 'title').map((x) => x.name).sort());
  const rates = (await result('OpenSearch indexing and search rates'))[0];
  assert.ok(rates.values.some((r) => r[1] > 0), 'the indexing rate rises during the reindex');
});

test('recorded search run: every mod-search dashboard query has data', async (t) => {
  const url = need(t, 'FP_INFLUX_URL', 'InfluxDB to run the queries on');
  if (!url) return;
  // Left by the search suite's run (last-search-testid).
  const testid = recordedTestid('search');
  if (!testid) {
    t.skip('no recorded search run (FP_DASH_TESTID_SEARCH, or last-search-testid in FP_STACK_DIR) to check the mod-search dashboard against');
    return;
  }
  const db = process.env.FP_INFLUX_DB || 'k6';
  const id = testid.replace(/'/g, "\\'");
  const edge = async (order) => {
    const { error, series } = await influxQuery(url, db, `SELECT "value" FROM "http_req_duration" WHERE "testid" = '${id}' ORDER BY time ${order} LIMIT 1`);
    assert.equal(error, null, error);
    assert.ok(series.length > 0, `no http_req_duration samples for testid ${testid} in database ${db}`);
    return series[0].values[0][0];
  };
  const { problems, cpuModules } = await checkAll(url, db, testid, (await edge('ASC')) - 30_000, (await edge('DESC')) + 30_000, searchDashboards);
  // A fast run has no request over 700 ms: InfluxQL then returns no series
  // (the panel shows 0); the synthetic run above checks that query's count.
  assert.deepEqual(problems.filter((p) => !p.includes('panel "Requests over 700 ms" A: no data')), []);
  assert.deepEqual([...cpuModules].sort(), ['mod-search', 'opensearch']);
});

// Whatever the workflow: every variable and panel query of its dashboards is valid InfluxQL on its
// recorded run (whether a panel has data is the workflow's own test above).
test('every workflow\'s dashboards: each query runs on its recorded run', async (t) => {
  const url = need(t, 'FP_INFLUX_URL', 'InfluxDB to run the queries on');
  if (!url) return;
  const db = process.env.FP_INFLUX_DB || 'k6';
  const now = Date.now();
  for (const workflow of workflowNames()) {
    const testid = recordedTestid(workflow);
    if (!testid) {
      if (process.env.FP_REQUIRE_STACK) assert.fail(`no recorded ${workflow} run (FP_DASH_TESTID_${workflow.toUpperCase()} or last-${workflow}-testid in FP_STACK_DIR): its e2e suite leaves one`);
      continue;
    }
    const { problems } = await checkAll(url, db, testid, now - 24 * 3600_000, now, dashboardsOf(workflow));
    assert.deepEqual(problems.filter((p) => !/: no data \(/.test(p)), [], `${workflow}'s dashboards`);
  }
});
