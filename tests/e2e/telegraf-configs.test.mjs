// telegraf/docker.conf and telegraf/ecs.conf in the real Telegraf (bin/telegraf,
// built by `make telegraf` with the plugins they need).
//
// 1. Both configs load: `telegraf --test` exits 0 with every plugin started;
//    their inputs may only fail to reach their endpoint (no Docker engine and
//    no AWS here), never on the configuration.
// 2. docker.conf's normalisation to module_stats: Telegraf's docker input reads
//    a Docker Engine API served on a unix socket by this test (no Docker
//    engine can run here; the responses follow the Engine API's /info,
//    /containers/json, /containers/{id}/stats and /json shapes), and the
//    output must be module_stats with the module from the compose label,
//    cpu_percent with 100 = one core and mem_rss_bytes without page cache.
//    With FP_PG_DSN its postgresql input reads the stack's real PostgreSQL.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bin, repo, runAsync } from './helpers.mjs';

const telegraf = bin('telegraf');

function requireTelegraf(t) {
  if (existsSync(telegraf)) return true;
  const msg = `${telegraf} is missing: run \`make telegraf\``;
  if (process.env.FP_REQUIRE_STACK) assert.fail(msg);
  t.skip(msg);
  return false;
}

/** Runs `telegraf --config <file> --test` with only the given environment. */
function telegrafTest(config, env, extraArgs = []) {
  return runAsync(telegraf, ['--config', join(repo, 'telegraf', config), '--test', ...extraArgs], {
    env: { PATH: process.env.PATH, HOME: tmpdir(), ...env },
  });
}

const errorLines = (stderr) => stderr.split('\n').filter((l) => / E! /.test(l));

// Errors that mean "the endpoint is not there", as opposed to a bad config.
const ENDPOINT_ERRORS = [
  /Cannot connect to the Docker daemon/,
  /failed to get Docker info/,
  /connection refused/,
  /dial tcp/,
  /hostname resolving error/,
  /no such host/,
  /input plugins recorded \d+ errors/,
];

// Telegraf exits 1 both on a bad config and when an input recorded an error
// in --test mode, so the exit code alone cannot tell them apart: the config
// loaded when the plugins were listed, and every error must be an endpoint's.
function assertOnlyEndpointErrors(res, what) {
  assert.match(res.stderr, /Loaded inputs: /, `${what} does not load:\n${res.stderr}`);
  const bad = errorLines(res.stderr).filter((l) => !ENDPOINT_ERRORS.some((re) => re.test(l)));
  assert.deepEqual(bad, [], `${what}: errors that are not about an absent endpoint`);
}

test('telegraf/docker.conf loads; without a Docker engine only the endpoint fails', async (t) => {
  if (!requireTelegraf(t)) return;
  const res = await telegrafTest('docker.conf', {
    FP_INFLUX_URL: 'http://127.0.0.1:1',
    FOLIO_DB_PASSWORD: 'unused',
    DOCKER_HOST: `unix://${join(tmpdir(), `fp-no-docker-${process.pid}.sock`)}`,
    FP_PG_HOST: '127.0.0.1',
    FP_PG_PORT: '1',
  });
  assertOnlyEndpointErrors(res, 'telegraf/docker.conf');
  assert.match(res.stderr, /Loaded inputs: docker postgresql/);
  assert.match(res.stderr, /Loaded processors: starlark/);
  assert.match(res.stderr, /Cannot connect to the Docker daemon|failed to get Docker info/);
});

test('telegraf/ecs.conf loads; without AWS only the endpoint fails', async (t) => {
  if (!requireTelegraf(t)) return;
  const res = await telegrafTest('ecs.conf', {
    FP_INFLUX_URL: 'http://127.0.0.1:1',
    // Nothing may leave the machine: a closed local port as CloudWatch and
    // dummy credentials, so the SDK never asks the EC2 metadata service.
    FP_CLOUDWATCH_ENDPOINT: 'http://127.0.0.1:1',
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'test-only',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_MAX_ATTEMPTS: '1', // no retries against a closed port
    FOLIO_ECS_CLUSTER: 'folio-perf-test',
  });
  assertOnlyEndpointErrors(res, 'telegraf/ecs.conf');
  assert.match(res.stderr, /Loaded inputs: cloudwatch \(2x\)/);
  assert.match(res.stderr, /Loaded processors: starlark/);
  assert.match(res.stderr, /127\.0\.0\.1:1/, 'CloudWatch was not asked at the configured endpoint');
});

// ---- docker.conf against a Docker Engine API --------------------------------

const CONTAINERS = [
  // minifolio module, labelled by docker-compose.yml
  { id: 'a1', name: 'folio-perf-mod-circulation-1', labels: { 'io.folio-perf.module': 'mod-circulation', 'com.docker.compose.service': 'mod-circulation' } },
  // a FOLIO module container from another compose file: service name only
  { id: 'b2', name: 'other-mod-users-1', labels: { 'com.docker.compose.service': 'mod-users' } },
  // the search workflow: minifolio's mod-search and the compose file's OpenSearch
  { id: 'd4', name: 'folio-perf-mod-search-1', labels: { 'io.folio-perf.module': 'mod-search', 'com.docker.compose.service': 'mod-search' } },
  { id: 'e5', name: 'folio-perf-opensearch-1', labels: { 'io.folio-perf.module': 'opensearch', 'com.docker.compose.service': 'opensearch' } },
  // an OpenSearch from another compose file: service name only
  { id: 'f6', name: 'search-opensearch-1', labels: { 'com.docker.compose.service': 'opensearch' } },
  // not a module: must not appear in module_stats
  { id: 'c3', name: 'folio-perf-grafana-1', labels: { 'com.docker.compose.service': 'grafana' } },
];

function stats(now) {
  // 0.5 s of container CPU over 2 s of system CPU on 2 online CPUs: 50 % of
  // one core. 200 MiB used of which 50 MiB inactive page cache: 150 MiB.
  return {
    read: now,
    preread: now,
    cpu_stats: {
      cpu_usage: { total_usage: 1_500_000_000, usage_in_kernelmode: 0, usage_in_usermode: 0 },
      system_cpu_usage: 12_000_000_000,
      online_cpus: 2,
      throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 },
    },
    precpu_stats: { cpu_usage: { total_usage: 1_000_000_000 }, system_cpu_usage: 10_000_000_000, online_cpus: 2 },
    memory_stats: { usage: 209_715_200, limit: 4_000_000_000, stats: { inactive_file: 52_428_800 } },
  };
}

function dockerEngine(socket) {
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://docker').pathname.replace(/^\/v\d+\.\d+/, '');
    const json = (body) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Api-Version': '1.47', Server: 'Docker/27.3.1 (linux)', Ostype: 'linux' });
      res.end(JSON.stringify(body));
    };
    if (path === '/_ping') {
      res.writeHead(200, { 'Api-Version': '1.47', Ostype: 'linux', Server: 'Docker/27.3.1 (linux)' });
      return res.end(req.method === 'HEAD' ? undefined : 'OK');
    }
    if (path === '/info') return json({ ID: 'test', Name: 'test-engine', ServerVersion: '27.3.1', NCPU: 2, MemTotal: 4e9, OSType: 'linux', DriverStatus: [] });
    if (path === '/containers/json') {
      return json(CONTAINERS.map((c) => ({ Id: c.id, Names: [`/${c.name}`], Image: 'folio-perf/minifolio:local', Labels: c.labels, State: 'running', Status: 'Up' })));
    }
    let m = /^\/containers\/(\w+)\/stats$/.exec(path);
    if (m) return json(stats(new Date().toISOString()));
    m = /^\/containers\/(\w+)\/json$/.exec(path);
    if (m) {
      return json({ Id: m[1], State: { Status: 'running', Running: true, Pid: 1, StartedAt: '2026-11-22T00:00:00Z', FinishedAt: '0001-01-01T00:00:00Z' }, Config: { Env: [] }, RestartCount: 0 });
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ message: `not served by this test: ${req.method} ${path}` }));
  });
  return new Promise((resolve) => server.listen(socket, () => resolve(server)));
}

/** Parses Telegraf's --test output lines ("> name,tags fields ts"). */
function parseLines(stdout) {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('> '))
    .map((l) => {
      const [head, fields] = l.slice(2).split(' ');
      const [name, ...tags] = head.split(',');
      return {
        name,
        tags: Object.fromEntries(tags.map((t) => t.split('='))),
        fields: Object.fromEntries(fields.split(',').map((f) => f.split('='))),
      };
    });
}

test('telegraf/docker.conf turns container stats into module_stats', async (t) => {
  if (!requireTelegraf(t)) return;
  const dir = mkdtempSync(join(tmpdir(), 'fp-docker-'));
  const socket = join(dir, 'docker.sock');
  const server = await dockerEngine(socket);
  t.after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = { FP_INFLUX_URL: 'http://127.0.0.1:1', DOCKER_HOST: `unix://${socket}`, FOLIO_DB_PASSWORD: 'unused', FP_PG_HOST: '127.0.0.1', FP_PG_PORT: '1' };
  const dsn = process.env.FP_PG_DSN ? new URL(process.env.FP_PG_DSN) : null;
  if (dsn) Object.assign(env, { FP_PG_HOST: dsn.hostname, FP_PG_PORT: dsn.port || '5432', FOLIO_DB_PASSWORD: decodeURIComponent(dsn.password) });
  // Without a database only the docker input runs, so that its result is not
  // masked by the postgresql input's connection error.
  const res = await telegrafTest('docker.conf', env, dsn ? [] : ['--input-filter', 'docker']);
  assert.equal(res.status, 0, `telegraf --test failed:\n${res.stderr}`);
  const metrics = parseLines(res.stdout);

  // Only module_stats (and postgresql) leave Telegraf: the raw docker_*
  // measurements are replaced, not added to.
  assert.deepEqual([...new Set(metrics.map((m) => m.name))].filter((n) => n !== 'postgresql'), ['module_stats']);
  const stats = metrics.filter((m) => m.name === 'module_stats');
  assert.deepEqual([...new Set(stats.map((m) => m.tags.module))].sort(), ['mod-circulation', 'mod-search', 'mod-users', 'opensearch']);
  for (const m of stats) assert.deepEqual(Object.keys(m.tags), ['module'], 'module_stats carries only the module tag');
  const field = (module, name) => stats.find((m) => m.tags.module === module && name in m.fields)?.fields[name];
  assert.equal(Number(field('mod-circulation', 'cpu_percent')), 50);
  assert.equal(field('mod-circulation', 'mem_rss_bytes'), `${150 * 1024 * 1024}i`);
  assert.equal(Number(field('mod-users', 'cpu_percent')), 50);
  assert.equal(Number(field('mod-search', 'cpu_percent')), 50);
  assert.equal(field('opensearch', 'mem_rss_bytes'), `${150 * 1024 * 1024}i`);

  if (dsn) {
    const pg = metrics.filter((m) => m.name === 'postgresql');
    assert.ok(pg.some((m) => m.tags.db === 'folio' && 'numbackends' in m.fields && 'xact_commit' in m.fields), res.stdout);
    assert.ok(pg.every((m) => !('server' in m.tags)), 'the connection string must not become a tag');
    // Only a distinctive password can be searched for (`make test` uses one);
    // the local default "folio" is also the user and database name.
    const pw = env.FOLIO_DB_PASSWORD;
    if (pw.length >= 8) assert.ok(!res.stdout.includes(pw) && !res.stderr.includes(pw), 'password leaked into output');
  } else if (process.env.FP_REQUIRE_STACK) {
    assert.fail('FP_PG_DSN is not set: the postgresql input cannot be checked; `make test` sets it');
  }
});

// ---- ecs.conf against a CloudWatch API --------------------------------------

// What Container Insights and RDS report for a small FOLIO cluster.
const ECS_SERVICES = {
  'pcp1-okapi': { CpuUtilized: 1536, MemoryUtilized: 1024 }, // 1.5 vCPU, 1 GiB
  'pcp1-mod-circulation': { CpuUtilized: 512, MemoryUtilized: 512 }, // half a vCPU, 512 MiB
  'pcp1-mod-search': { CpuUtilized: 256, MemoryUtilized: 768 },
  // a self-hosted OpenSearch as an ECS service
  'pcp1-opensearch': { CpuUtilized: 2048, MemoryUtilized: 4096 },
};
const RDS = { instance: 'folio-db', CPUUtilization: 30, DatabaseConnections: 42 };

function cloudwatchMetrics() {
  const ecs = Object.keys(ECS_SERVICES).flatMap((service) =>
    ['CpuUtilized', 'MemoryUtilized'].map((name) => ({
      Namespace: 'ECS/ContainerInsights',
      MetricName: name,
      Dimensions: [
        { Name: 'ClusterName', Value: 'folio-perf-test' },
        { Name: 'ServiceName', Value: service },
      ],
    })),
  );
  const rds = ['CPUUtilization', 'DatabaseConnections'].map((name) => ({
    Namespace: 'AWS/RDS',
    MetricName: name,
    Dimensions: [{ Name: 'DBInstanceIdentifier', Value: RDS.instance }],
  }));
  // A metric of another namespace that the config must ignore.
  const other = { Namespace: 'AWS/EC2', MetricName: 'CPUUtilization', Dimensions: [{ Name: 'InstanceId', Value: 'i-1' }] };
  return [...ecs, ...rds, other];
}

function valueOf(metric) {
  const dim = (n) => metric.Dimensions.find((d) => d.Name === n)?.Value;
  if (metric.Namespace === 'AWS/RDS') return RDS[metric.MetricName];
  return ECS_SERVICES[dim('ServiceName')]?.[metric.MetricName];
}

/** CloudWatch's RPCv2-CBOR API: ListMetrics and GetMetricData. */
async function cloudwatchApi() {
  const { decode, encode, epoch, float } = await import('./cbor.mjs');
  const calls = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const op = /\/operation\/(\w+)$/.exec(req.url)?.[1];
      const body = chunks.length ? decode(Buffer.concat(chunks)) : {};
      calls.push(op);
      let out;
      if (op === 'ListMetrics') {
        out = { Metrics: cloudwatchMetrics() };
      } else if (op === 'GetMetricData') {
        const at = epoch(Date.now() / 1000 - 240);
        out = {
          MetricDataResults: body.MetricDataQueries.map((q) => ({
            Id: q.Id,
            Label: q.Label,
            StatusCode: 'Complete',
            Timestamps: [at],
            Values: [float(valueOf(q.MetricStat.Metric))],
          })),
          Messages: [],
        };
      } else {
        res.writeHead(400, { 'smithy-protocol': 'rpc-v2-cbor', 'Content-Type': 'application/cbor' });
        return res.end(encode({ __type: 'InvalidAction', message: `not served by this test: ${op}` }));
      }
      res.writeHead(200, { 'smithy-protocol': 'rpc-v2-cbor', 'Content-Type': 'application/cbor' });
      res.end(encode(out));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, calls, url: `http://127.0.0.1:${server.address().port}` };
}

test('telegraf/ecs.conf turns Container Insights and RDS metrics into module_stats and postgresql', async (t) => {
  if (!requireTelegraf(t)) return;
  const api = await cloudwatchApi();
  t.after(() => api.server.close());
  const res = await telegrafTest('ecs.conf', {
    FP_INFLUX_URL: 'http://127.0.0.1:1',
    FP_CLOUDWATCH_ENDPOINT: api.url,
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'test-only',
    AWS_EC2_METADATA_DISABLED: 'true',
    FOLIO_ECS_CLUSTER: 'folio-perf-test',
    FOLIO_RDS_VCPUS: '4',
  });
  assert.equal(res.status, 0, `telegraf --test failed:\n${res.stderr}`);
  assert.ok(api.calls.includes('GetMetricData'), `Telegraf never asked for data (calls: ${api.calls})`);
  const metrics = parseLines(res.stdout);
  assert.deepEqual([...new Set(metrics.map((m) => m.name))].sort(), ['module_stats', 'postgresql'], res.stdout);

  const stats = metrics.filter((m) => m.name === 'module_stats');
  for (const m of stats) assert.deepEqual(Object.keys(m.tags), ['module']);
  const byModule = Object.fromEntries(stats.map((m) => [m.tags.module, m.fields]));
  assert.deepEqual(Object.keys(byModule).sort(), ['mod-circulation', 'mod-search', 'okapi', 'opensearch', 'postgres']);
  assert.equal(Number(byModule['mod-search'].cpu_percent), 25);
  assert.equal(Number(byModule.opensearch.cpu_percent), 200);
  assert.equal(byModule.opensearch.mem_rss_bytes, `${4096 * 1024 * 1024}i`);
  // 1024 CPU units = one vCPU = 100 %; MiB → bytes.
  assert.equal(Number(byModule.okapi.cpu_percent), 150);
  assert.equal(byModule.okapi.mem_rss_bytes, `${1024 * 1024 * 1024}i`);
  assert.equal(Number(byModule['mod-circulation'].cpu_percent), 50);
  assert.equal(byModule['mod-circulation'].mem_rss_bytes, `${512 * 1024 * 1024}i`);
  // RDS reports % of the instance: 30 % of 4 vCPUs = 120 % of one core.
  assert.equal(Number(byModule.postgres.cpu_percent), 120);

  const pg = metrics.filter((m) => m.name === 'postgresql');
  assert.deepEqual(pg.map((m) => [m.tags, m.fields]), [[{ db: 'folio-db' }, { numbackends: '42i' }]]);
});
