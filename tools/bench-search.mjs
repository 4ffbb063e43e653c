#!/usr/bin/env node
// `make bench-search`: the mod-search workflow's benchmark (not a test: its
// figures depend on the machine). Three comparisons, each against the floor of
// the same work done without minifolio:
//
//   1. reindex: documents/s of minifolio's legacy reindex of a tenant (reading
//      PostgreSQL, building documents, bulk-loading OpenSearch) against a raw
//      `_bulk` of the very documents it wrote, loaded the way the reindex
//      loads them (same settings and mapping, refresh_interval -1 then one
//      refresh, 1,000 per request, two at a time, index creation timed on
//      both sides). BENCH_SEARCH_ROUNDS (default 5) interleaved rounds; the
//      median ratio and its interquartile range, beside the raw bulk's own
//      round-to-round spread (its floor: a shortfall smaller than that
//      spread is not a measured one). Target: >= 0.7x.
//   2. per template: p50 through gateway + mod-search (G) against the same
//      OpenSearch requests sent direct (D). Target: G/D <= 1.2x. The
//      requests are the ones mod-search sends: a first pass goes through a
//      second minifolio whose OpenSearch URL is a recording proxy. The timed
//      pass runs that minifolio against OpenSearch itself with its
//      pass-through route on (MINIFOLIO_SEARCH_PASSTHROUGH=1) and times, per
//      sample and in rotating order, G, D, and the floor F: the recorded
//      requests, registered with the pass-through beforehand, each sent by a
//      bare GET through the gateway, i.e. the gateway hop and a proxy without
//      mod-search's logic. A template over 1.2x whose F/D
//      is over 1.2x too is beyond the floor: the target asks for less than
//      the hop alone costs on this machine.
//   3. tenant B's throughput and p95 alone vs under tenant A's reindex (the
//      Lotus report saw -18 % throughput at 1 user): one search run
//      (folio-perf run WORKFLOW=search, 1 user, a baseline then a reindex
//      phase); the baseline phase against the reindex's own window
//      (reindex_running), read back from InfluxDB, with the CPU of
//      OpenSearch, PostgreSQL and minifolio (module_stats) and of k6 and the
//      whole machine (/proc) in each window: on a shared machine the reindex
//      competes with everything else for the same cores.
//
// Parts 2 and 3 need the search workflow (lib/search/templates.js,
// scripts/mod-search.js, the query files of make search-data). What cannot
// run is said, never made up. Exit 0 when every target is met, 1 otherwise.
//
// Environment: FP_MINIFOLIO_PORT (gateway, minifolio up --opensearch running),
// FP_OPENSEARCH_URL, BENCH_TENANT (default fs09000001, seeded), FOLIO_PASSWORD
// (default admin, local only), BENCH_SEARCH_PARTS (default 1,2,3: which
// parts to run; 4 compares each template's p50/p95 on tenants of different
// sizes, BENCH_SEARCH_SIZES=small,big), BENCH_SEARCH_ROUNDS (part 1, default
// 5), BENCH_SEARCH_TIMEOUT_MIN (part 1's bound on one reindex, default 30),
// BENCH_SEARCH_SAMPLES (parts 2 and 4, per template, default 30),
// BENCH_SEARCH_PORT (part 2's own minifolio, default the gateway's port + 230),
// BENCH_SEARCH_DURATION (part 3, per phase, default 60s). At a million
// instances (docs/scale.md): BENCH_SEARCH_ROUNDS=3 BENCH_SEARCH_TIMEOUT_MIN=120.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuShare, median as p50, quantile, reindexVerdict, spread, templateVerdict } from './bench-search-stats.mjs';
import { makeTestId } from '../lib/testid.js';
import { setting } from './defaults.mjs';
import * as T from '../lib/search/templates.js';
import * as D from '../lib/search/data.js';
import { METRICS, FIELDS } from '../lib/metrics.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const gatewayPort = Number(setting('FP_MINIFOLIO_PORT'));
const gateway = `http://127.0.0.1:${gatewayPort}`;
const opensearch = (process.env.FP_OPENSEARCH_URL || `http://127.0.0.1:${setting('FP_OPENSEARCH_PORT')}`).replace(/\/$/, '');
const tenant = process.env.BENCH_TENANT || setting('FP_REINDEX_TENANT');
const password = process.env.FOLIO_PASSWORD || setting('FP_ADMIN_PASSWORD');
// The raw side loads as minifolio's reindex does (internal/modules/search.go:
// pages of 1,000 instances, two _bulk requests at a time).
const BULK_DOCS = 1000; // documents per raw _bulk request
const BULK_CONCURRENCY = 2;
const ROUNDS = Math.max(1, Number(process.env.BENCH_SEARCH_ROUNDS || 5));
// A reindex of a million instances takes minutes, on a busy machine an hour.
const TIMEOUT_MS = Math.max(1, Number(process.env.BENCH_SEARCH_TIMEOUT_MIN || 30)) * 60_000;
// Where part 1 keeps the reindex's documents as _bulk bodies (a file, not memory: a million
// documents are gigabytes); removed at the end.
const workDir = join(process.env.FP_STACK_DIR || join(repo, '.stack'), 'bench-search');

// What die() must undo first (the benchmark's own minifolio), synchronously.
const cleanups = [];

function die(cause, fix) {
  for (const f of cleanups.splice(0)) f();
  console.error(`bench-search: ${cause}. Fix: ${fix}`);
  process.exit(1);
}

async function call(url, { method = 'GET', headers = {}, body } = {}) {
  let res;
  for (let attempt = 1; ; attempt++) {
    try {
      res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(120_000) });
      break;
    } catch (e) {
      // A kept-alive connection to a gateway that has since restarted (the
      // benchmark restarts its own) fails once, before any answer: retry.
      if (e.cause?.code === 'UND_ERR_SOCKET' && attempt < 3) continue;
      return { status: 0, text: String(e.cause?.code ?? e.message), json: null, headers: new Headers() };
    }
  }
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, text, json, headers: res.headers };
}

async function login(base = gateway, t = tenant) {
  const r = await call(`${base}/authn/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-okapi-tenant': t },
    body: JSON.stringify({ username: setting('FP_USER'), password }),
  });
  const token = r.headers.get('x-okapi-token');
  if (r.status === 0) die(`minifolio's gateway does not answer at ${base} (${r.text})`, 'start it: bin/minifolio up --opensearch $FP_OPENSEARCH_URL');
  if (!token) die(`login to tenant ${t} failed (HTTP ${r.status})`, `seed it: bin/minifolio seed --tenant ${t} --items 20000 --authorities 5000`);
  return { 'x-okapi-tenant': t, 'x-okapi-token': token, 'content-type': 'application/json' };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function count(index) {
  await call(`${opensearch}/${index}/_refresh`, { method: 'POST' });
  const r = await call(`${opensearch}/${index}/_count`);
  return r.json?.count ?? -1;
}

/** OpenSearch's garbage-collection milliseconds so far (young and old together): a heap too small for the load shows there. */
async function gcMillis() {
  const node = Object.values((await call(`${opensearch}/_nodes/stats/jvm`)).json?.nodes ?? {})[0];
  return node ? Object.values(node.jvm.gc.collectors).reduce((a, c) => a + c.collection_time_in_millis, 0) : NaN;
}

/** One legacy reindex with recreateIndex, from the POST until every document counts. */
async function timedReindex(headers, index) {
  const gc0 = await gcMillis();
  const t0 = performance.now();
  const start = await call(`${gateway}/search/index/inventory/reindex`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ recreateIndex: true, resourceName: 'instance' }),
  });
  if (start.status !== 200 || !start.json?.id) die(`the reindex was refused (HTTP ${start.status}: ${start.text.slice(0, 200)})`, 'is mod-search running (minifolio up --opensearch)?');
  let job;
  const poll = () => call(`${gateway}/instance-storage/reindex/${start.json.id}`, { headers });
  for (;;) {
    let r = await poll();
    // The operator's token runs out during a long reindex (minifolio's 10 minutes by default; PTF's
    // 7.3 M instances take half an hour): log in again, where polling on with the dead token would
    // only wait for the time limit.
    if (r.status === 401) {
      Object.assign(headers, await login());
      r = await poll();
    }
    if (r.status !== 200) die(`the reindex job's status answered HTTP ${r.status} (${r.text.slice(0, 200)})`, 'read the gateway and mod-search logs');
    job = r.json;
    if (job && job.jobStatus !== 'In progress') break;
    if (performance.now() - t0 > TIMEOUT_MS) die(`the reindex did not finish within ${TIMEOUT_MS / 60_000} minutes`, 'read the mod-search log, or allow more: BENCH_SEARCH_TIMEOUT_MIN');
    await sleep(50);
  }
  if (job.jobStatus !== 'Ids published') die(`the reindex ended ${job.jobStatus}`, 'read the mod-search log');
  // Done when every document is searchable, not when the job says so.
  let docs = await count(index);
  while (docs < (job.published ?? 0) && performance.now() - t0 < TIMEOUT_MS) {
    await sleep(50);
    docs = await count(index);
  }
  return { docs, seconds: (performance.now() - t0) / 1000, gcSeconds: ((await gcMillis()) - gc0) / 1000 };
}

/**
 * The same documents bulk-loaded the way the reindex loads them: the index
 * created (inside the timing, as the reindex's recreate is) with the same
 * settings, mapping and refresh_interval -1, BULK_DOCS per request,
 * BULK_CONCURRENCY at a time, then refreshes back to 1s and one refresh.
 */
async function timedRawBulk(meta, bulkFile, scratch) {
  await call(`${opensearch}/${scratch}`, { method: 'DELETE' });
  const { number_of_shards, number_of_replicas, analysis, max_result_window } = meta.settings.index;
  const file = await open(bulkFile.path, 'r');
  const gc0 = await gcMillis();
  const t1 = performance.now();
  const created = await call(`${opensearch}/${scratch}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ settings: { number_of_shards, number_of_replicas, analysis, max_result_window, refresh_interval: '-1' }, mappings: meta.mappings }),
  });
  if (created.status !== 200) die(`could not create ${scratch} (${created.text.slice(0, 200)})`, 'read the OpenSearch log');
  let next = 0;
  const worker = async () => {
    while (next < bulkFile.chunks.length) {
      const { offset, length } = bulkFile.chunks[next++];
      // Read from the page cache, as the reindex reads PostgreSQL's.
      const body = Buffer.alloc(length);
      await file.read(body, 0, length, offset);
      // No compression, as mod-search's client asks for none: fetch would
      // ask for gzip and make OpenSearch compress every bulk answer.
      const r = await call(`${opensearch}/${scratch}/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', 'accept-encoding': 'identity' }, body });
      if (r.status !== 200 || r.json?.errors) die(`raw _bulk failed (${r.text.slice(0, 200)})`, 'read the OpenSearch log');
    }
  };
  await Promise.all(Array.from({ length: BULK_CONCURRENCY }, worker));
  await call(`${opensearch}/${scratch}/_settings`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ index: { refresh_interval: '1s' } }) });
  const bulked = await count(scratch);
  const seconds = (performance.now() - t1) / 1000;
  const gcSeconds = ((await gcMillis()) - gc0) / 1000;
  await file.close();
  await call(`${opensearch}/${scratch}`, { method: 'DELETE' });
  return { bulked, seconds, gcSeconds };
}

/**
 * The documents of index as _bulk bodies of BULK_DOCS each, written to a file (one scroll page
 * per body): { path, chunks: [{ offset, length }] }.
 */
async function writeBulkFile(index) {
  mkdirSync(workDir, { recursive: true });
  const path = join(workDir, `bulk-${index}.ndjson`);
  cleanups.push(() => rmSync(path, { force: true }));
  const file = await open(path, 'w');
  const chunks = [];
  let offset = 0;
  let page = await call(`${opensearch}/${index}/_search?scroll=5m`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ size: BULK_DOCS, sort: ['_doc'] }),
  });
  while (page.json?.hits?.hits?.length) {
    const body = Buffer.from(page.json.hits.hits.map((h) => `{"index":{"_id":${JSON.stringify(h._id)}}}\n${JSON.stringify(h._source)}\n`).join(''));
    await file.write(body, 0, body.length, offset);
    chunks.push({ offset, length: body.length });
    offset += body.length;
    page = await call(`${opensearch}/_search/scroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scroll: '5m', scroll_id: page.json._scroll_id }),
    });
  }
  await file.close();
  return { path, chunks, bytes: offset };
}

/**
 * Part 1: minifolio's reindex against a raw _bulk of the same documents,
 * BENCH_SEARCH_ROUNDS times interleaved (reindex, bulk, reindex, bulk…) so
 * both sides see the same machine noise and OpenSearch's JIT warm-up does
 * not land on one side only; the verdict is the median ratio.
 */
async function reindexVsBulk(headers) {
  const index = `folio_instance_${tenant}`;
  const scratch = `bench_bulk_${tenant}`;
  let bulkFile = null;
  let meta = null;
  const ratios = [];
  const reindexRates = [];
  const bulkRates = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const re = await timedReindex(headers, index);
    if (!bulkFile) {
      // The documents as mod-search wrote them.
      meta = (await call(`${opensearch}/${index}`)).json?.[index];
      if (!meta) die(`index ${index} is missing after the reindex`, 'read the mod-search log');
      bulkFile = await writeBulkFile(index);
    }
    const raw = await timedRawBulk(meta, bulkFile, scratch);
    const reindexRate = re.docs / re.seconds;
    const bulkRate = raw.bulked / raw.seconds;
    ratios.push(reindexRate / bulkRate);
    reindexRates.push(reindexRate);
    bulkRates.push(bulkRate);
    console.log(`1. round ${round}/${ROUNDS}: reindex of ${tenant}: ${re.docs} instance documents in ${re.seconds.toFixed(1)} s = ${reindexRate.toFixed(0)} docs/s; ` +
      `raw _bulk of the same ${raw.bulked} (${BULK_DOCS} per request, ${BULK_CONCURRENCY} at a time, refresh_interval -1) in ${raw.seconds.toFixed(1)} s = ${bulkRate.toFixed(0)} docs/s; ratio ${(reindexRate / bulkRate).toFixed(2)}; ` +
      `OpenSearch's GC ${re.gcSeconds.toFixed(1)} s during the reindex, ${raw.gcSeconds.toFixed(1)} s during the raw bulk`);
  }
  const r = spread(ratios);
  const re = spread(reindexRates);
  const bulk = spread(bulkRates);
  const pct = (x) => `${(x * 100).toFixed(0)} %`;
  console.log(`   reindex docs/s: median ${re.median.toFixed(0)}, IQR ${re.q1.toFixed(0)}-${re.q3.toFixed(0)} (${pct(re.relative)} of the median)`);
  console.log(`   raw _bulk docs/s (the floor): median ${bulk.median.toFixed(0)}, IQR ${bulk.q1.toFixed(0)}-${bulk.q3.toFixed(0)}: the same work moved ${pct(bulk.relative)} of its median between rounds`);
  const verdict = reindexVerdict(ratios, bulkRates);
  console.log(`   ratio over ${ROUNDS} interleaved rounds: median ${r.median.toFixed(2)}, IQR ${r.q1.toFixed(2)}-${r.q3.toFixed(2)} (target >= 0.7): ${verdict}`);
  rmSync(bulkFile.path, { force: true });
  return verdict !== 'NOT met';
}

/** A proxy to OpenSearch that records the _search requests made while `key` is set. */
async function recordingProxy() {
  const target = new URL(opensearch);
  const rec = { key: null, seen: new Map() };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (rec.key && req.url.includes('/_search')) {
        if (!rec.seen.has(rec.key)) rec.seen.set(rec.key, []);
        // accept-encoding too: the direct side must ask for the same
        // encoding (fetch asks for gzip unless told otherwise).
        rec.seen.get(rec.key).push({ method: req.method, path: req.url, body: body.toString(), encoding: req.headers['accept-encoding'] || 'identity' });
      }
      const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.writeHead(502).end());
      up.end(body);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { rec, server, url: `http://127.0.0.1:${server.address().port}` };
}

/**
 * Part 2: per template, p50 through gateway + mod-search vs the same queries
 * through the gateway to a pass-through (the floor) vs straight to OpenSearch.
 */
async function templatesVsDirect() {
  const searchTenant = process.env.BENCH_SEARCH_TENANT || setting('FP_TENANT');
  const samples = Number(process.env.BENCH_SEARCH_SAMPLES || 30);
  let tables;
  try {
    tables = D.FILES.map((f) => D.parseRows(readFileSync(join(repo, 'data', 'search', f.file), 'utf8'), f.file));
  } catch (e) {
    die(`the search query files are missing (${e.message})`, 'make search-data');
  }
  const proxy = await recordingProxy();
  const runDir = join(process.env.FP_STACK_DIR || join(repo, '.stack'), 'bench-search');
  const port = Number(process.env.BENCH_SEARCH_PORT || gatewayPort + 230);
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, MINIFOLIO_DB: process.env.MINIFOLIO_DB || process.env.FP_PG_DSN || '' };
  const mf = (args, extraEnv = {}) => spawnSync(join(repo, 'bin', 'minifolio'), args, { encoding: 'utf8', env: { ...env, ...extraEnv } });
  const upArgs = (os) => ['up', '--run-dir', runDir, '--port', String(port), '--profile', 'fast', '--opensearch', os];
  const failedUp = (up) => die(`a second minifolio for the benchmark did not start (${(up.stderr || up.stdout).trim().split('\n').pop()})`, `it needs MINIFOLIO_DB (or FP_PG_DSN) and free ports ${port}-${port + 10} (BENCH_SEARCH_PORT)`);
  const keyOf = (t, i) => `${t.name}|${i}`;
  mf(['down', '--run-dir', runDir]);
  cleanups.push(() => mf(['down', '--run-dir', runDir]));
  // First the queries mod-search sends, recorded: a minifolio whose
  // OpenSearch is the recording proxy.
  const up = mf(upArgs(proxy.url));
  if (up.status !== 0) failedUp(up);
  try {
    const tenantHeaders = await login(base, searchTenant);
    for (const t of T.TEMPLATES) {
      for (let i = 0; i < samples; i++) {
        proxy.rec.key = keyOf(t, i);
        const r = await call(`${base}${T.searchRequest(t, D.valuesAt(tables, i)).url}`, { headers: tenantHeaders });
        if (r.status !== 200) die(`${t.name} answered ${r.status} while recording (${r.text.slice(0, 200)})`, 'read the mod-search log');
      }
    }
  } finally {
    proxy.rec.key = null;
    mf(['down', '--run-dir', runDir]);
    proxy.server.close();
  }

  // Then the timed pass on the same minifolio pointed at OpenSearch itself,
  // with the pass-through route on: per sample, the three sides in a
  // rotating order so none always runs first (warm caches) or last.
  const up2 = mf(upArgs(opensearch), { MINIFOLIO_SEARCH_PASSTHROUGH: '1' });
  if (up2.status !== 0) failedUp(up2);
  const rows = [];
  try {
    const h = await login(base, searchTenant);
    // The floor's requests are registered with the pass-through first, so
    // the timed floor request is a bare GET (no more bytes than a search's
    // URL), not the query body carried over two more hops.
    for (const list of proxy.rec.seen.values()) {
      for (const q of list) {
        const r = await call(`${base}/search/passthrough`, { method: 'POST', headers: h, body: JSON.stringify({ path: q.path, body: q.body }) });
        if (r.status !== 201 || !r.json?.id) die(`the pass-through refused a request (HTTP ${r.status}: ${r.text.slice(0, 200)})`, 'is MINIFOLIO_SEARCH_PASSTHROUGH reaching mod-search?');
        q.id = r.json.id;
      }
    }
    for (const t of T.TEMPLATES) {
      const times = { gateway: [], floor: [], direct: [] };
      for (let i = 0; i < samples; i++) {
        const queries = proxy.rec.seen.get(keyOf(t, i)) ?? [];
        const sides = {
          gateway: async () => {
            const r = await call(`${base}${T.searchRequest(t, D.valuesAt(tables, i)).url}`, { headers: h });
            if (r.status !== 200) die(`${t.name} answered ${r.status} (${r.text.slice(0, 200)})`, 'read the mod-search log');
          },
          floor: async () => {
            for (const q of queries) {
              const r = await call(`${base}/search/passthrough?id=${q.id}`, { headers: h });
              if (r.status !== 200) die(`the pass-through answered ${r.status} for ${t.name} (${r.text.slice(0, 200)})`, 'is MINIFOLIO_SEARCH_PASSTHROUGH reaching mod-search?');
            }
          },
          direct: async () => {
            for (const q of queries) {
              await call(`${opensearch}${q.path}`, { method: q.method, headers: { 'content-type': 'application/json', 'accept-encoding': q.encoding }, body: q.body || undefined });
            }
          },
        };
        const order = ['gateway', 'floor', 'direct'];
        for (let k = 0; k < i % 3; k++) order.push(order.shift());
        for (const side of order) {
          const t0 = performance.now();
          await sides[side]();
          times[side].push(performance.now() - t0);
        }
      }
      rows.push({ name: t.name, gateway: p50(times.gateway), floor: p50(times.floor), direct: p50(times.direct) });
    }
  } finally {
    mf(['down', '--run-dir', runDir]);
  }
  console.log(`2. per-template p50 over ${samples} requests each, tenant ${searchTenant}: gateway + mod-search (G), the same OpenSearch requests through the gateway to a pass-through in the module process (F, the floor: gateway hop + proxy, no mod-search logic), and straight to OpenSearch (D)`);
  const width = Math.max(...rows.map((r) => r.name.length));
  const ms = (x) => x.toFixed(1).padStart(6);
  console.log(`   ${'template'.padEnd(width)}  ${'G ms'.padStart(6)} ${'F ms'.padStart(6)} ${'D ms'.padStart(6)}   G/D    F/D    G/F  verdict`);
  for (const r of rows) {
    r.verdict = templateVerdict(r);
    console.log(`   ${r.name.padEnd(width)}  ${ms(r.gateway)} ${ms(r.floor)} ${ms(r.direct)}  ${(r.gateway / r.direct).toFixed(2)}x  ${(r.floor / r.direct).toFixed(2)}x  ${(r.gateway / r.floor).toFixed(2)}x  ${r.verdict}`);
  }
  const med = (f) => p50(rows.map(f));
  const count = (v) => rows.filter((r) => r.verdict === v).length;
  console.log(`   medians over templates: G/D ${med((r) => r.gateway / r.direct).toFixed(2)}x, F/D ${med((r) => r.floor / r.direct).toFixed(2)}x, G/F ${med((r) => r.gateway / r.floor).toFixed(2)}x; ` +
    `mod-search's own cost G-F ${med((r) => r.gateway - r.floor).toFixed(2)} ms, the hop F-D ${med((r) => r.floor - r.direct).toFixed(2)} ms`);
  const notMet = count('NOT met');
  console.log(`   target G/D <= 1.2x: ${count('met')} of ${rows.length} met, ${count('beyond the floor')} beyond the floor (F/D > 1.2x), ${notMet} not met: ${notMet === 0 ? (count('met') === rows.length ? 'met' : 'met where the floor allows') : 'NOT met'}`);
  return notMet === 0;
}

/**
 * Part 4: each template's p50 and p95 through gateway + mod-search on tenants of different sizes
 * (BENCH_SEARCH_SIZES, e.g. a 40,000- and a 1,000,000-instance tenant), the same query values on
 * each, the tenants taken in turn per sample (rotating which goes first), so the machine's noise
 * falls on both alike. No target: it shows where the time goes as the index grows.
 */
async function templatesBySize() {
  const tenants = (process.env.BENCH_SEARCH_SIZES || '').split(',').map((t) => t.trim()).filter(Boolean);
  if (tenants.length < 2) {
    console.log('4. per-template p50/p95 by index size: NOT RUN (BENCH_SEARCH_SIZES names fewer than two seeded, indexed tenants, e.g. BENCH_SEARCH_SIZES=fs09000002,fs09000000)');
    return true;
  }
  const samples = Number(process.env.BENCH_SEARCH_SAMPLES || 30);
  let tables;
  try {
    tables = D.FILES.map((f) => D.parseRows(readFileSync(join(repo, 'data', 'search', f.file), 'utf8'), f.file));
  } catch (e) {
    die(`the search query files are missing (${e.message})`, 'make search-data');
  }
  const heads = {};
  const sizes = {};
  const headingsOf = {};
  for (const t of tenants) {
    heads[t] = await login(gateway, t);
    sizes[t] = await count(`folio_instance_${t}`);
    // Both indexes: a search of a missing authority index answers at once with nothing found, and
    // would pass for a fast one (part 1 rebuilds only the instance index).
    headingsOf[t] = await count(`folio_authority_${t}`);
    if (sizes[t] <= 0 || headingsOf[t] <= 0) {
      die(`tenant ${t} has no ${sizes[t] <= 0 ? 'instance' : 'authority'} index`, `seed and index it: bin/minifolio seed --tenant ${t} ..., then node tools/search-index.mjs --url ${gateway} --tenant ${t}`);
    }
  }
  const rows = [];
  for (const tpl of T.TEMPLATES) {
    const times = Object.fromEntries(tenants.map((t) => [t, []]));
    for (let i = 0; i < samples; i++) {
      const order = [...tenants];
      for (let k = 0; k < i % tenants.length; k++) order.push(order.shift());
      for (const t of order) {
        const t0 = performance.now();
        const r = await call(`${gateway}${T.searchRequest(tpl, D.valuesAt(tables, i)).url}`, { headers: heads[t] });
        times[t].push(performance.now() - t0);
        if (r.status !== 200) die(`${tpl.name} answered ${r.status} on ${t} (${r.text.slice(0, 200)})`, 'read the mod-search log');
      }
    }
    rows.push({ name: tpl.name, by: Object.fromEntries(tenants.map((t) => [t, { p50: quantile(times[t], 0.5), p95: quantile(times[t], 0.95) }])) });
  }
  const [small, big] = [tenants[0], tenants[tenants.length - 1]];
  console.log(`4. per-template p50 / p95 in ms through gateway + mod-search, ${samples} requests each, by index size: ` +
    tenants.map((t) => `${t} ${sizes[t].toLocaleString('en')} instances and ${headingsOf[t].toLocaleString('en')} authority headings`).join(', '));
  const width = Math.max(...rows.map((r) => r.name.length));
  const cell = (x) => `${x.p50.toFixed(1).padStart(7)} ${x.p95.toFixed(1).padStart(7)}`;
  console.log(`   ${'template'.padEnd(width)}  ${tenants.map((t) => `${`${t} p50`.padStart(15)} ${'p95'.padStart(7)}`).join('  ')}  p50 ${big}/${small}`);
  for (const r of rows) {
    console.log(`   ${r.name.padEnd(width)}  ${tenants.map((t) => `${''.padStart(7)} ${cell(r.by[t])}`).join('  ')}  ${(r.by[big].p50 / r.by[small].p50).toFixed(2)}x`);
  }
  const ratio = (q) => p50(rows.map((r) => r.by[big][q] / r.by[small][q]));
  console.log(`   median over templates of ${big}/${small}: p50 ${ratio('p50').toFixed(2)}x, p95 ${ratio('p95').toFixed(2)}x for ${(sizes[big] / sizes[small]).toFixed(1)}x the instances`);
  return true;
}

async function influx(q) {
  const base = (process.env.FP_INFLUX_URL || `http://127.0.0.1:${setting('FP_INFLUX_PORT')}`).replace(/\/$/, '');
  const r = await call(`${base}/query?db=k6&epoch=ms&q=${encodeURIComponent(q)}`);
  const res = r.json?.results?.[0];
  if (!res || res.error) die(`InfluxDB query failed (${res?.error ?? r.text.slice(0, 200)})`, 'is the stack up (make stack-up-search)?');
  return res.series ?? [];
}

const TICKS = 100; // USER_HZ: /proc's CPU times are in 1/100 s on Linux

const cores = () => readFileSync('/proc/cpuinfo', 'utf8').split('\n').filter((l) => l.startsWith('processor')).length;

/** The machine's busy CPU-seconds so far (all cores, every process). */
function machineCpu() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal = 0] = f;
    return (user + nice + system + irq + softirq + steal) / TICKS;
  } catch {
    return null;
  }
}

/** CPU-seconds of this checkout's k6 (a k6 process whose working directory is the repository). */
function k6Cpu() {
  let total = null;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(k6)') || readlinkSync(`/proc/${pid}/cwd`) !== repo) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total = (total ?? 0) + (Number(f[11]) + Number(f[12])) / TICKS; // utime, stime
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Part 3: tenant B's search alone against the same search during tenant A's reindex. */
async function aloneVsUnderReindex() {
  const testid = makeTestId('bench-search');
  const duration = process.env.BENCH_SEARCH_DURATION || '60s';
  // k6's CPU and the whole machine's, sampled from /proc each second while
  // the run lasts (module_stats has the stack's processes, not k6).
  const samples = { k6: [], machine: [] };
  const sampler = setInterval(() => {
    const t = Date.now();
    const k6 = k6Cpu();
    if (k6 !== null) samples.k6.push({ t, cpu: k6 });
    const m = machineCpu();
    if (m !== null) samples.machine.push({ t, cpu: m });
  }, 1000);
  const r = await new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
      cwd: repo,
      env: { ...process.env, WORKFLOW: 'search', PROFILE: 'smoke', VUS: '1', DURATION: duration, REINDEX_TENANT: tenant, TESTID: testid, MINIFOLIO_PROFILE: 'fast' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => { out = (out + c).slice(-4000); });
    child.stderr.on('data', (c) => { out = (out + c).slice(-4000); });
    const timer = setTimeout(() => child.kill('SIGINT'), 60 * 60_000);
    child.on('close', (status) => { clearTimeout(timer); resolve({ status, out }); });
  });
  clearInterval(sampler);
  if (r.status !== 0 && r.status !== 99) die(`the search run failed (exit ${r.status}: ${r.out.trim().split('\n').pop()})`, `read results/${testid}/ and make run WORKFLOW=search's output`);
  const summary = JSON.parse(readFileSync(join(repo, 'results', testid, 'summary.json'), 'utf8'));
  const window = summary.tables?.reindex?.[0];
  if (!window?.startedAt || !window?.endedAt) die('the run recorded no reindex window', 'read the run output');
  const from = Date.parse(window.startedAt);
  const to = Date.parse(window.endedAt);
  const id = testid.replace(/'/g, "\\'");
  const stats = async (where) => {
    const [s] = await influx(`SELECT count("value"), percentile("value", 95) FROM "${METRICS.httpDuration}" WHERE "testid" = '${id}' AND "group" =~ /.+/ AND ${where}`);
    const [f] = await influx(`SELECT first("value") FROM "${METRICS.httpDuration}" WHERE "testid" = '${id}' AND "group" =~ /.+/ AND ${where}`);
    const [l] = await influx(`SELECT last("value") FROM "${METRICS.httpDuration}" WHERE "testid" = '${id}' AND "group" =~ /.+/ AND ${where}`);
    if (!s) return null;
    const seconds = Math.max((l.values[0][0] - f.values[0][0]) / 1000, 1);
    return { n: s.values[0][1], p95: s.values[0][2], rps: s.values[0][1] / seconds, seconds, from: f.values[0][0], to: l.values[0][0] };
  };
  const alone = await stats(`"phase" = 'baseline'`);
  const under = await stats(`"phase" = 'reindex' AND time >= ${from}ms AND time <= ${to}ms`);
  // CPU by part in each window, in % of one core: the stack's processes
  // from module_stats (Telegraf, 5 s points), k6 and the machine from /proc.
  const cpu = async (a, b) => {
    const series = await influx(`SELECT mean("${FIELDS.cpuPercent}") FROM "${METRICS.moduleStats}" WHERE time >= ${a}ms AND time <= ${b}ms GROUP BY "module"`);
    const by = {};
    for (const x of series) {
      const m = x.tags.module;
      const part = m === 'opensearch' ? 'opensearch' : m === 'postgres' ? 'postgres' : m === 'okapi' || m.startsWith('mod-') ? 'minifolio' : null;
      if (part && x.values[0][1] !== null) by[part] = (by[part] ?? 0) + x.values[0][1];
    }
    const pctOf = (xs) => {
      const share = cpuShare(xs, a, b);
      return share === null ? null : share * 100;
    };
    return { ...by, k6: pctOf(samples.k6), machine: pctOf(samples.machine) };
  };
  if (alone) alone.cpu = await cpu(alone.from, alone.to);
  if (under) under.cpu = await cpu(from, to);
  console.log(`3. tenant B (1 user) alone vs during tenant ${tenant}'s reindex (run ${testid}, reindex ${((to - from) / 1000).toFixed(1)} s)`);
  if (!alone || !under) {
    console.log('   no search requests in one of the two windows: make tenant A bigger so its reindex lasts, e.g. bin/minifolio seed --tenant ' + tenant + ' --force --items 200000');
    return false;
  }
  const pct = (a, b) => `${((b / a - 1) * 100).toFixed(1)} %`;
  console.log(`   alone:          ${alone.n} requests in ${alone.seconds.toFixed(0)} s = ${alone.rps.toFixed(2)} req/s, p95 ${alone.p95.toFixed(1)} ms`);
  console.log(`   during reindex: ${under.n} requests in ${under.seconds.toFixed(0)} s = ${under.rps.toFixed(2)} req/s, p95 ${under.p95.toFixed(1)} ms`);
  console.log(`   throughput ${pct(alone.rps, under.rps)}, p95 ${pct(alone.p95, under.p95)} (Lotus report: -18 % throughput at 1 user)`);
  const c = (x) => (x === undefined || x === null ? '   n/a' : `${x.toFixed(0).padStart(5)}%`);
  console.log('   CPU, % of one core (the machine has ' + cores() + '):  OpenSearch PostgreSQL minifolio     k6  all processes');
  for (const [label, w] of [['alone', alone], ['during reindex', under]]) {
    console.log(`   ${label.padEnd(15)}                                ${c(w.cpu.opensearch)}     ${c(w.cpu.postgres)}    ${c(w.cpu.minifolio)} ${c(w.cpu.k6)}         ${c(w.cpu.machine)}`);
  }
  if (to - from < 10_000) console.log(`   the reindex lasted under 10 s: too short to compare; seed tenant ${tenant} with more items`);
  return true;
}

// BENCH_SEARCH_PARTS (e.g. "1" or "1,3") runs only those parts; the exit
// status then covers only them.
/** One line on what OpenSearch runs with: the node's heap, and each benchmark index's shards, size and documents. */
async function openSearchSettings() {
  const node = Object.values((await call(`${opensearch}/_nodes/stats/jvm`)).json?.nodes ?? {})[0];
  const heap = node ? `${(node.jvm.mem.heap_max_in_bytes / 2 ** 20).toFixed(0)} MiB heap` : 'heap unknown';
  const indexes = (await call(`${opensearch}/_cat/indices/folio_instance_*?format=json&bytes=b&h=index,pri,rep,docs.count,store.size`)).json ?? [];
  const each = indexes.map((i) => `${i.index} ${i.pri} shard(s), ${i.rep} replica(s), ${Number(i['docs.count']).toLocaleString('en')} documents, ${(Number(i['store.size']) / 1e9).toFixed(2)} GB`);
  console.log(`OpenSearch: ${heap}; ${each.join('; ') || 'no instance index'}`);
}

const parts = new Set((process.env.BENCH_SEARCH_PARTS || '1,2,3').split(',').map((s) => s.trim()));
const headers = await login();
await openSearchSettings();
const met1 = parts.has('1') ? await reindexVsBulk(headers) : true;
const met2 = parts.has('2') ? await templatesVsDirect() : true;
if (parts.has('4')) await templatesBySize();
const ran3 = parts.has('3') ? await aloneVsUnderReindex() : true;
process.exit(met1 && met2 === true && ran3 !== null ? 0 : 1);
