// The native stack, end to end: the running test stack reports itself, k6
// writes into its InfluxDB, Telegraf writes module_stats, and bad situations
// (port taken, missing binary, damaged data dir) stop with a one-line cause and
// leave nothing running. Throw-away stacks use their own directories and ports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, env, bin, influxQuery, waitFor, run } from './helpers.mjs';

const stack = (args, extra) => run(join(repo, 'stack', 'stack.sh'), args, { env: extra });

// freePort asks the kernel for an unused port; listen=true keeps it occupied.
function freePort(listen = false) {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      if (listen) resolve({ port, close: () => srv.close() });
      else srv.close(() => resolve({ port }));
    });
  });
}

// A separate stack in a temp dir, on free ports, so these tests never touch the
// shared test stack. Ports are chosen per call.
async function scratchStack() {
  const dir = mkdtempSync(join(tmpdir(), 'fp-stack-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user and must reach its data dir
  const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  return {
    dir,
    env: {
      FP_STACK_DIR: dir,
      FP_PG_PORT: String(ports[0].port),
      FP_INFLUX_PORT: String(ports[1].port),
      FP_INFLUX_RPC_PORT: String(ports[2].port),
      FP_TELEGRAF_PORT: String(ports[3].port),
      // The test stack's environment sets FP_SEARCH=1 (it runs OpenSearch); a scratch stack
      // starts OpenSearch only where a test asks for it.
      FP_SEARCH: '0',
    },
  };
}

// runningUnder reports whether any process's command line names dir: the
// scratch stack's PostgreSQL and InfluxDB carry their data/config path there.
// (The pid files are removed on stop, so they cannot tell.)
function runningUnder(dir) {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) return true;
    } catch {
      // the process ended while we looked
    }
  }
  return false;
}

test('stack-status prints one line per service with its URL, all up', () => {
  const r = stack(['status']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const lines = r.stdout.trim().split('\n');
  // The test stack runs the search workflow's OpenSearch and the Eureka profiles' Keycloak too
  // (stack.sh up search eureka).
  assert.equal(lines.length, 5, r.stdout);
  assert.match(lines[0], /^postgres\s+up\s+postgres:\/\/folio@127\.0\.0\.1:\d+\/folio$/);
  assert.match(lines[1], /^influxdb\s+up\s+http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(lines[2], /^telegraf\s+up\s+http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(lines[3], new RegExp(`^opensearch\\s+up\\s+http://127\\.0\\.0\\.1:${env('FP_OPENSEARCH_PORT')}$`));
  assert.match(lines[4], new RegExp(`^keycloak\\s+up\\s+http://127\\.0\\.0\\.1:${env('FP_KEYCLOAK_PORT')}$`));
  assert.ok(lines[1].endsWith(env('FP_INFLUX_URL')), 'status URL is the one the tests use');
});

test('stack-up on a running stack starts nothing twice', () => {
  const pidFile = join(env('FP_STACK_DIR'), 'run', 'influxdb.pid');
  const before = readFileSync(pidFile, 'utf8');
  const r = stack(['up']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /influxdb: already up/);
  assert.equal(readFileSync(pidFile, 'utf8'), before, 'InfluxDB was not restarted');
});

test('k6 -o influxdb writes samples that InfluxQL reads back', async () => {
  const testid = `e2e-influx-${Date.now()}`;
  const r = run(bin('k6'), [
    'run', '--quiet', '--tag', `testid=${testid}`,
    '-o', `influxdb=${env('FP_INFLUX_URL')}/k6`,
    '--env', `TARGET=${env('FP_INFLUX_URL')}`,
    join(repo, 'tests', 'e2e', 'k6', 'influx-output.js'),
  ]);
  assert.equal(r.status, 0, r.stdout + r.stderr);

  const measurements = (await influxQuery('SHOW MEASUREMENTS'))[0].values.flat();
  for (const m of ['http_req_duration', 'http_reqs', 'checks', 'iterations']) {
    assert.ok(measurements.includes(m), `measurement ${m} missing from ${measurements}`);
  }
  const where = `WHERE "testid" = '${testid}' AND "name" = 'GET /ping'`;
  const [count] = await influxQuery(`SELECT count("value") FROM "http_req_duration" ${where}`);
  assert.equal(count.values[0][1], 40, 'one point per request');
  const [p95] = await influxQuery(`SELECT percentile("value", 95) FROM "http_req_duration" ${where}`);
  const v = p95.values[0][1];
  assert.ok(typeof v === 'number' && v > 0, `p95 is a positive number of ms, got ${v}`);
});

test('Telegraf writes module_stats for PostgreSQL and InfluxDB', async () => {
  const modules = await waitFor(async () => {
    const series = await influxQuery(
      `SELECT last("cpu_percent"), last("mem_rss_bytes") FROM "module_stats" WHERE time > now() - 2m GROUP BY "module"`,
    );
    const got = Object.fromEntries(series.map((s) => [s.tags.module, s.values[0]]));
    return got.postgres && got.influxdb ? got : null;
  }, { seconds: 40, what: 'module_stats for postgres and influxdb' });
  for (const m of ['postgres', 'influxdb']) {
    const [, cpu, rss] = modules[m];
    assert.ok(cpu >= 0, `${m} cpu_percent is a number ≥ 0, got ${cpu}`);
    assert.ok(rss > 1_000_000, `${m} mem_rss_bytes looks like a real RSS, got ${rss}`);
  }
  const keys = (await influxQuery('SHOW TAG KEYS FROM "module_stats"'))[0].values.flat();
  assert.deepEqual(keys, ['module'], 'module_stats carries only the low-cardinality module tag');

  const commits = await waitFor(async () => {
    const [s] = await influxQuery(`SELECT last("xact_commit") FROM "postgresql" WHERE "db" = 'folio' AND time > now() - 2m`);
    return s?.values[0][1];
  }, { seconds: 40, what: 'postgresql statistics' });
  assert.ok(commits > 0);
});

test('the database password appears in no tag value and no stack log', async () => {
  const secret = env('FOLIO_DB_PASSWORD');
  const series = await influxQuery('SHOW TAG VALUES WITH KEY =~ /.*/');
  const values = JSON.stringify(series);
  assert.ok(!values.includes(secret), 'a tag value contains the password');
  const logs = join(env('FP_STACK_DIR'), 'logs');
  for (const f of ['postgres.log', 'influxdb.log', 'telegraf.log']) {
    const p = join(logs, f);
    if (existsSync(p)) assert.ok(!readFileSync(p, 'utf8').includes(secret), `${f} contains the password`);
  }
});

test('a taken port stops stack-up with the port and the setting, leaving nothing running', async () => {
  const s = await scratchStack();
  const taken = await freePort(true);
  try {
    const r = stack(['up'], { ...s.env, FP_INFLUX_PORT: String(taken.port) });
    assert.notEqual(r.status, 0);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line, got: ${r.stderr}`);
    assert.match(lines[0], new RegExp(`port ${taken.port} \\(InfluxDB HTTP\\) is already in use`));
    assert.match(lines[0], /FP_INFLUX_PORT=/);
    // PostgreSQL had started before InfluxDB failed: it must have been stopped.
    assert.match(r.stdout, /postgres: up/);
    assert.equal(runningUnder(s.dir), false, 'a process of the failed stack-up is left running');
    const st = stack(['status'], s.env);
    assert.notEqual(st.status, 0);
    assert.doesNotMatch(st.stdout, /\bup\b/);
  } finally {
    taken.close();
    stack(['down'], s.env);
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('a missing binary names the fix and leaves nothing running', async () => {
  const s = await scratchStack();
  try {
    const r = stack(['up'], { ...s.env, FP_INFLUXD: '/nonexistent/influxd' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /influxd \(InfluxDB 1\.x\) not found\. Fix: run make deps/);
    assert.equal(runningUnder(s.dir), false, 'a process of the failed stack-up is left running');
  } finally {
    stack(['down'], s.env);
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('a damaged PostgreSQL data dir is reported, not overwritten', async () => {
  const s = await scratchStack();
  try {
    const data = join(s.dir, 'postgres', 'data');
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'base'), 'not a cluster');
    const r = stack(['up'], s.env);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /is not a PostgreSQL data directory .* damaged\. Fix: run make stack-clean/);
    assert.ok(existsSync(join(data, 'base')), 'the damaged directory was left for the user to inspect');
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

// OpenSearch in the stack: the test stack's node answers on 127.0.0.1 only
// and is OpenSearch 2.19.1 without the security plugin.
test('OpenSearch: 2.19.1 on 127.0.0.1 with plain HTTP, no security plugin', async () => {
  const url = `http://127.0.0.1:${env('FP_OPENSEARCH_PORT')}`;
  const root = await (await fetch(url)).json();
  assert.equal(root.version.distribution, 'opensearch');
  assert.equal(root.version.number, '2.19.1');
  const plugins = await (await fetch(`${url}/_cat/plugins?format=json`)).json();
  assert.ok(!plugins.some((p) => /security/.test(p.component)), `plugins: ${JSON.stringify(plugins)}`);
  const nodes = await (await fetch(`${url}/_nodes/_local/http,transport`)).json();
  const node = Object.values(nodes.nodes)[0];
  for (const a of [...node.http.bound_address, ...node.transport.bound_address]) {
    assert.match(a, /^(127\.0\.0\.1|\[::ffff:127\.0\.0\.1\]):\d+$/, `bound to ${a}: loopback only`);
  }
});

test('Telegraf writes module_stats for OpenSearch and its index/search counters', async () => {
  const url = `http://127.0.0.1:${env('FP_OPENSEARCH_PORT')}`;
  const index = `fp-e2e-telegraf-${Date.now()}`;
  // A few documents and a search, so the counters have something to count.
  const bulk = Array.from({ length: 20 }, (_, i) => `{"index":{}}\n{"title":"word ${i}"}\n`).join('');
  const r = await fetch(`${url}/${index}/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: bulk });
  assert.equal(r.status, 200, await r.text());
  try {
    assert.equal((await (await fetch(`${url}/${index}/_search?q=title:word`)).json()).hits.total.value, 20);
    const got = await waitFor(async () => {
      const [ms] = await influxQuery(`SELECT last("cpu_percent"), last("mem_rss_bytes") FROM "module_stats" WHERE "module" = 'opensearch' AND time > now() - 1m`);
      const [os] = await influxQuery(`SELECT last("indexing_index_total"), last("search_query_total"), last("docs_count") FROM "opensearch" WHERE time > now() - 1m`);
      return ms && os && os.values[0][1] >= 20 && os.values[0][2] >= 1 ? { ms: ms.values[0], os: os.values[0] } : null;
    }, { seconds: 60, what: 'module_stats{module=opensearch} and opensearch counters after 20 documents' });
    const [, cpu, rss] = got.ms;
    assert.ok(cpu >= 0 && rss > 100_000_000, `an OpenSearch JVM: cpu ${cpu}, rss ${rss}`);
    const keys = (await influxQuery('SHOW TAG KEYS FROM "opensearch"'))[0].values.flat();
    assert.deepEqual(keys, ['cluster_name'], 'the opensearch measurement carries only cluster_name');
  } finally {
    await fetch(`${url}/${index}`, { method: 'DELETE' });
  }
});

// A throw-away stack with OpenSearch: started only when asked for, listed by
// status, reused by a second up, stopped by down. Its own ports and directory;
// about a minute, as OpenSearch takes that long to start here.
test('stack up search: OpenSearch starts, is listed, is reused, and down stops it', { timeout: 360_000 }, async () => {
  const s = await scratchStack();
  const os = await freePort();
  const e = { ...s.env, FP_OPENSEARCH_PORT: String(os.port) };
  try {
    let r = stack(['up'], e);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /opensearch/, 'plain up does not start OpenSearch');
    assert.equal(stack(['status'], e).stdout.trim().split('\n').length, 3);
    r = run(join(repo, 'stack', 'stack.sh'), ['up', 'search'], { env: e, timeoutMs: 240_000 });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /postgres: already up/);
    assert.match(r.stdout, new RegExp(`opensearch: up \\(http://127\\.0\\.0\\.1:${os.port}\\)`));
    const pidFile = join(s.dir, 'run', 'opensearch.pid');
    const pid = readFileSync(pidFile, 'utf8');
    const st = stack(['status'], e);
    assert.equal(st.status, 0, st.stdout);
    assert.match(st.stdout.trim().split('\n')[3], new RegExp(`^opensearch\\s+up\\s+http://127\\.0\\.0\\.1:${os.port}$`));
    r = stack(['up'], { ...e, FP_SEARCH: '1' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /opensearch: already up/);
    assert.equal(readFileSync(pidFile, 'utf8'), pid, 'OpenSearch was not restarted');
    // A node that died is listed as down, not dropped from the list.
    process.kill(Number(pid), 'SIGKILL');
    await waitFor(() => !existsSync(`/proc/${Number(pid)}`), { seconds: 20, what: 'the killed OpenSearch to exit' });
    const dead = stack(['status'], e);
    assert.notEqual(dead.status, 0);
    assert.match(dead.stdout, /^opensearch\s+down\s+http:/m);
    r = stack(['down'], e);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(runningUnder(s.dir), false, 'down left a process of the stack running');
    assert.equal(existsSync(pidFile), false);
  } finally {
    stack(['down'], e);
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('OpenSearch: a taken port or missing jars stop up search with one line, leaving nothing running', async () => {
  const s = await scratchStack();
  const taken = await freePort(true);
  try {
    let r = stack(['up', 'search'], { ...s.env, FP_OPENSEARCH_PORT: String(taken.port) });
    assert.notEqual(r.status, 0);
    let lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line, got: ${r.stderr}`);
    assert.match(lines[0], new RegExp(`port ${taken.port} \\(OpenSearch\\) is already in use.*FP_OPENSEARCH_PORT=`));
    assert.equal(runningUnder(s.dir), false, 'a process of the failed stack-up is left running');

    r = stack(['up', 'search'], { ...s.env, FP_OPENSEARCH_HOME: join(s.dir, 'no-opensearch') });
    assert.notEqual(r.status, 0);
    lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line, got: ${r.stderr}`);
    assert.match(lines[0], /OpenSearch is not fetched .*Fix: run make opensearch$/);
    assert.equal(runningUnder(s.dir), false, 'a process of the failed stack-up is left running');

    r = stack(['up', 'serach'], s.env);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /^folio-perf: unknown part 'serach'\. Fix: use stack\/stack\.sh up \[search\] \[eureka\]/);
  } finally {
    taken.close();
    stack(['down'], s.env);
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('Keycloak: a taken port or a missing build stop up eureka with one line, leaving nothing running', async () => {
  const s = await scratchStack();
  const taken = await freePort(true);
  try {
    let r = stack(['up', 'eureka'], { ...s.env, FP_KEYCLOAK_PORT: String(taken.port) });
    assert.notEqual(r.status, 0);
    let lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line, got: ${r.stderr}`);
    assert.match(lines[0], new RegExp(`port ${taken.port} \\(Keycloak\\) is already in use.*FP_KEYCLOAK_PORT=`));
    assert.equal(runningUnder(s.dir), false, 'a process of the failed stack-up is left running');

    r = stack(['up', 'eureka'], { ...s.env, FP_KEYCLOAK_HOME: join(s.dir, 'no-keycloak') });
    assert.notEqual(r.status, 0);
    lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line, got: ${r.stderr}`);
    assert.match(lines[0], /Keycloak [\d.]+ is not fetched .*Fix: run make keycloak KEYCLOAK_VERSION=[\d.]+$/);
    assert.equal(runningUnder(s.dir), false, 'a process of the failed stack-up is left running');
  } finally {
    taken.close();
    stack(['down'], s.env);
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('stack-down with nothing running is a quiet no-op', async () => {
  const s = await scratchStack();
  try {
    const r = stack(['down'], s.env);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, '');
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('influxdb-lp (k6/influxout) writes exactly the points of k6\'s influxdb output', async () => {
  const testid = `e2e-lp-${Date.now()}`;
  const dbs = { stock: `lp_stock_${Date.now()}`, lp: `lp_ours_${Date.now()}` };
  const url = env('FP_INFLUX_URL');
  const r = run(bin('k6'), [
    'run', '--quiet', '--tag', `testid=${testid}`,
    '-o', `influxdb=${url}/${dbs.stock}`,
    '-o', `influxdb-lp=${url}/${dbs.lp}`,
    '--env', `TARGET=${url}`,
    join(repo, 'tests', 'e2e', 'k6', 'influx-lp.js'),
  ]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  try {
    const measurements = (await influxQuery('SHOW MEASUREMENTS', dbs.stock))[0].values.flat();
    assert.deepEqual((await influxQuery('SHOW MEASUREMENTS', dbs.lp))[0].values.flat(), measurements);
    for (const m of ['http_req_duration', 'http_reqs', 'checks', 'group_duration', 'lp_odd_trend', 'lp_rate', 'lp_counter']) {
      assert.ok(measurements.includes(m), `measurement ${m} missing from ${measurements}`);
    }
    let points = 0;
    for (const m of measurements) {
      const q = `SELECT * FROM "${m}" ORDER BY time`;
      const [stock] = await influxQuery(q, dbs.stock);
      const [lp] = await influxQuery(q, dbs.lp);
      assert.deepEqual(lp.columns, stock.columns, `${m}: the same tags and fields`);
      assert.deepEqual(lp.values, stock.values, `${m}: the same points`);
      points += stock.values.length;
    }
    assert.ok(points > 500, `a run of this size writes hundreds of points, got ${points}`);
    const [odd] = await influxQuery(`SELECT * FROM "lp_odd_trend" WHERE "kind" = 'a=b, c d' LIMIT 1`, dbs.lp);
    assert.equal(odd.values[0][odd.columns.indexOf('quote')], 'say "hi" \\ there', 'escaped tags read back as written');
  } finally {
    for (const db of Object.values(dbs)) await fetch(`${url}/query?q=${encodeURIComponent(`DROP DATABASE "${db}"`)}`, { method: 'POST' });
  }
});
