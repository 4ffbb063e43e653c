// Every panel query of every dashboard, with Grafana's variables substituted as
// Grafana would, run against the real InfluxDB (no Grafana on this machine).
//
// 1. "synthetic run": writes a small run in the metric contract's shape
//    (DESIGN.md §4) into a scratch database and checks that every variable and
//    panel query runs and returns data there. Needs FP_INFLUX_URL.
// 2. "recorded run": the same against a real run already in InfluxDB, named
//    by FP_DASH_TESTID (database FP_INFLUX_DB, default k6). The module CPU
//    panel must show every minifolio module, okapi and postgres.
// Without FP_INFLUX_URL / FP_DASH_TESTID a test skips, unless
// FP_REQUIRE_STACK=1 (`make test`), where it fails saying what is missing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { panelQueries, variableQueries } from '../../dashboards/src/grafana-vars.mjs';
import { hasValues, influxQuery, influxWrite } from '../../dashboards/src/influx-query.mjs';
import { repo } from './helpers.mjs';

const DASHBOARD_FILES = ['folio-check-in-check-out.json', 'folio-release-comparison.json'];
const dashboards = DASHBOARD_FILES.map((f) => JSON.parse(readFileSync(join(repo, 'dashboards', f), 'utf8')));

/** Returns the env value, or skips / fails the test when it is missing. */
function need(t, name, why) {
  const v = process.env[name];
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
  return { release: '$__all', testid, testid_a: testid, testid_b: testid };
}

/**
 * Runs every variable and panel query of every dashboard; returns a list of
 * problems (errors, empty panels) and the module CPU series' module tags.
 */
async function checkAll(url, db, testid, fromMs, toMs) {
  const problems = [];
  let cpuModules = null;
  for (const dash of dashboards) {
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
      if (q.panelTitle === 'Module CPU') cpuModules = series.map((s) => s.tags?.module);
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
  const testid = need(t, 'FP_DASH_TESTID', 'the testid of a check-in/check-out run already in InfluxDB');
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
  const expected = ['okapi', 'postgres', ...minifolioModules()];
  const missing = expected.filter((m) => !cpuModules.includes(m));
  assert.deepEqual(missing, [], `module CPU panel lacks ${missing.join(', ')} (has ${cpuModules.join(', ')})`);
});
