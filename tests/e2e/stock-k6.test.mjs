// The stock-k6 path as docs/stock-k6.md writes it: its block of commands, line for line, with
// upstream k6 as `k6` (bin/k6-stock: k6 v1.8.1 built from its own main package, no extension, its
// automatic extension resolution left on, as a user has it), k6's built-in `-o influxdb` output and
// DATA=csv, no Makefile and no folio-perf run; minifolio on the test stack plays "your FOLIO". Then the two runs it makes are what the rest of the project reads:
// every panel query of every dashboard returns data for them, and `folio-perf report` wrote both
// reports from the summaries the plain `k6 run` left in the working directory.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, env, bin, run, sql, childEnv } from './helpers.mjs';
import { poolQueries } from '../../lib/cico/data.js';
import { looseSummaryPath } from '../../lib/summary.js';
import { influxQuery } from '../../dashboards/src/influx-query.mjs';
import { checkDashboards, dashboardsOf } from './dashboard-queries.mjs';

const tenant = 'fs09000000';
const tmp = mkdtempSync(join(tmpdir(), 'fp-stock-k6-'));
const envName = `stock-k6-${process.pid}`;
const envFile = join(repo, 'env', `${envName}.json`);
const csvDir = join(tmp, 'csv');
const minifolioUrl = () => `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`;

/** The lines between the docs' stock-k6 marker and the end of its fenced block. */
export function documentedCommands(text = readFileSync(join(repo, 'docs', 'stock-k6.md'), 'utf8')) {
  const at = text.indexOf('<!-- stock-k6:commands');
  assert.ok(at >= 0, 'docs/stock-k6.md has its commands block');
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  assert.ok(block, 'the marker is followed by a ```sh block');
  return block[1];
}

before(() => {
  // "Your FOLIO": minifolio on the test stack, seeded (when empty), reset, and its instances
  // indexed in OpenSearch (a real FOLIO's search index exists already).
  const runDir = join(env('FP_STACK_DIR'), 'minifolio');
  const mf = (args, timeoutMs = 300_000) => {
    const r = run(bin('minifolio'), args, { env: { MINIFOLIO_DB: env('FP_PG_DSN') }, timeoutMs });
    assert.equal(r.status, 0, `minifolio ${args[0]}: ${r.stdout}${r.stderr}`);
  };
  mf(['down', '--run-dir', runDir]);
  mf(['up', '--run-dir', runDir, '--port', env('FP_MINIFOLIO_PORT'), '--profile', 'fast', '--opensearch', env('FP_OPENSEARCH_URL')]);
  mf(['seed', '--quiet', '--tenant', tenant, '--items', '3000', '--users', '40', '--authorities', '500']);
  mf(['reset', '--tenant', tenant]);
  const idx = run(process.execPath, [join(repo, 'tools', 'search-index.mjs'), '--url', minifolioUrl(), '--tenant', tenant, '--timeout', '600', '--if-incomplete'], { env: { FOLIO_PASSWORD: 'admin' }, timeoutMs: 660_000 });
  assert.equal(idx.status, 0, idx.stdout + idx.stderr);
  const data = run(process.execPath, [join(repo, 'tools', 'search-data.mjs'), '--out', join(tmp, 'queries'), '--rows', '200']);
  assert.equal(data.status, 0, data.stdout + data.stderr);

  // The user's PTF-style CSV files, chosen the way DATA=db would choose them: the items shelved at
  // the home service point, the active patrons (checked_out.csv is optional: a run then starts
  // with check-outs).
  const q = poolQueries(tenant);
  const sp = sql(q.homeServicePoint).split('|')[0];
  const rows = (query, ...args) =>
    sql(`prepare q(int, text) as ${query}; execute q(${args.map((a) => (typeof a === 'number' ? a : `'${a}'`)).join(', ')})`)
      .split('\n')
      .filter(Boolean);
  mkdirSync(csvDir, { recursive: true });
  writeFileSync(join(csvDir, 'available.csv'), `${rows(q.availableItems, 500, sp).join('\n')}\n`);
  writeFileSync(join(csvDir, 'user_barcodes.csv'), `${rows(q.activeUsers, 100, 'folio_admin').join('\n')}\n`);
  writeFileSync(join(csvDir, 'service_point.csv'), `${sp}\n`);

  // `cp env/folio.example.json env/mylib.json` and its edits: the target, and the CSV directory.
  const example = JSON.parse(readFileSync(join(repo, 'env', 'folio.example.json'), 'utf8'));
  const mine = { ...example, folio: { url: minifolioUrl(), tenant, user: 'folio_admin' }, db: { ...example.db, host: '127.0.0.1' }, data: `csv:${csvDir}`, release: 'stock-k6' };
  writeFileSync(envFile, JSON.stringify(mine, null, 2));
});

after(() => {
  rmSync(envFile, { force: true });
  rmSync(tmp, { recursive: true, force: true });
});

const stockK6 = () => bin('k6-stock');

test('no script imports an extension: a stock k6 runs them without fetching a build', () => {
  for (const script of ['smoke.js', 'check-in-check-out.js', 'mod-search.js']) {
    // k6's own view of the script's needs (what its automatic extension resolution acts on).
    const r = run(stockK6(), ['deps', '--json', join('scripts', script)], { env: { K6_AUTO_EXTENSION_RESOLUTION: undefined } });
    assert.equal(r.status, 0, r.stderr);
    const deps = JSON.parse(r.stdout);
    assert.deepEqual(deps.buildDependencies, { k6: '*' }, script);
    assert.deepEqual(deps.imports.filter((i) => i.startsWith('k6/x/')), [], script);
    assert.equal(deps.customBuildRequired, false, script);
  }
});

let walked;
function walk() {
  if (walked) return walked;
  // k6 on PATH is upstream's; everything else is the user's shell with the docs' settings.
  const path = join(tmp, 'path');
  mkdirSync(path, { recursive: true });
  if (!existsSync(join(path, 'k6'))) symlinkSync(stockK6(), join(path, 'k6'));
  const shellEnv = childEnv({
    PATH: `${path}:${process.env.PATH}`,
    K6_AUTO_EXTENSION_RESOLUTION: undefined, // as k6 comes: on
    FOLIO_ENV: envName,
    INFLUX_URL: env('FP_INFLUX_URL'),
    FOLIO_PASSWORD: 'admin',
    QUERY_FILES: join(tmp, 'queries'),
    DURATION: '20s', // the smoke profile's minute, shortened
    // No live web dashboard, only its export: several k6 runs share this machine, and one whose
    // port 5665 is taken serves and exports nothing.
    K6_WEB_DASHBOARD_PORT: '-1',
  });
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', documentedCommands()], { cwd: repo, env: shellEnv, encoding: 'utf8', timeout: 900_000 });
  const out = `${r.stdout}${r.stderr}`;
  const ids = [...out.matchAll(/^report: results\/([^/]+)\/report\.md/gm)].map((m) => m[1]);
  walked = { status: r.status, out, ids };
  return walked;
}

test('the docs\' commands run as written: smoke, a CICO and a search run with -o influxdb, both reports', () => {
  const { status, out, ids } = walk();
  assert.equal(status, 0, out.slice(-6000));
  assert.match(out, /folio-perf smoke: logged in \(login-with-expiry\), \d+ service points/);
  assert.equal(ids.length, 2, `two reports written: ${out.slice(-3000)}`);
  const [cico, search] = ids;
  assert.match(cico, /^cico-\d{8}T\d{6}Z$/);
  assert.match(search, /^search-\d{8}T\d{6}Z$/);
  for (const id of ids) {
    const dir = join(repo, 'results', id);
    // The plain k6 run left its summary in the working directory; the report filed it.
    assert.ok(!existsSync(join(repo, looseSummaryPath(id))), `${id}: the loose summary was moved`);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    assert.equal(summary.meta.testid, id);
    assert.equal(summary.checks.fails, 0, JSON.stringify(summary.checks.failing));
    for (const f of ['report.md', 'report.html']) assert.ok(existsSync(join(dir, f)), `${id}: ${f}`);
  }
  assert.ok(existsSync(join(repo, 'results', cico, 'k6-report.html')), "k6's HTML report, filed beside the summary");
  const report = readFileSync(join(repo, 'results', cico, 'report.md'), 'utf8');
  assert.match(report, /check-out/i);
  assert.doesNotMatch(report, /no samples|not reachable/i);
});

test('what k6\'s built-in output wrote is what the dashboards read: every panel has data', async () => {
  const { status, ids } = walk();
  assert.equal(status, 0);
  const url = env('FP_INFLUX_URL');
  for (const [id, workflow] of [[ids[0], 'cico'], [ids[1], 'search']]) {
    const edge = async (order) => {
      const { error, series } = await influxQuery(url, 'k6', `SELECT "value" FROM "http_req_duration" WHERE "testid" = '${id}' ORDER BY time ${order} LIMIT 1`);
      assert.equal(error, null, error);
      assert.ok(series.length > 0, `${id}: no samples in InfluxDB`);
      return series[0].values[0][0];
    };
    const from = (await edge('ASC')) - 30_000;
    const to = (await edge('DESC')) + 30_000;
    const { problems } = await checkDashboards(url, 'k6', id, from, to, dashboardsOf(workflow));
    // Without a reindex phase (never implied on a real FOLIO) the reindex panels are empty, and a
    // fast run has no request over 700 ms.
    const expectedEmpty = workflow === 'search' ? /panel "(Reindex duration|Reindex running|Requests over 700 ms)" A: no data/ : /^$/;
    assert.deepEqual(problems.filter((p) => !expectedEmpty.test(p)), [], `${workflow} dashboards on ${id}`);
    // Every request k6 counted reached InfluxDB through the built-in output (a short run: nothing lost).
    const summary = JSON.parse(readFileSync(join(repo, 'results', id, 'summary.json'), 'utf8'));
    const counted = await influxQuery(url, 'k6', `SELECT count("value") FROM "http_reqs" WHERE "testid" = '${id}'`);
    assert.equal(counted.series[0].values[0][1], summary.k6.metrics.http_reqs.values.count, `${id}: http_reqs points`);
  }
});

test('DATA=db on a stock k6: one line naming the fixes, before any request', () => {
  const r = run(stockK6(), ['run', '--quiet', '--address=', join('scripts', 'check-in-check-out.js')], {
    env: { K6_AUTO_EXTENSION_RESOLUTION: undefined, FOLIO_ENV: 'local', FOLIO_PASSWORD: 'admin', FOLIO_URL: minifolioUrl(), FOLIO_DB_PORT: env('FP_PG_PORT'), DATA: 'db' },
    timeoutMs: 120_000,
  });
  assert.equal(r.status, 107, r.stdout + r.stderr);
  assert.match(r.stderr, /folio-perf: DATA=db reads FOLIO's database through the k6\/x\/sql module, which this k6 lacks .*; fix: use DATA=csv:<dir>, or a k6 with k6\/x\/sql/);
  assert.doesNotMatch(r.stdout + r.stderr, /http_reqs/, 'no request sent');
});
