#!/usr/bin/env node
// Indexes one tenant through FOLIO's own API before a search run (folio-perf run WORKFLOW=search, tools/run/workflows/search.mjs):
// logs in, starts mod-search's full reindex (POST /search/index/instance-records/reindex/full),
// polls GET /search/index/instance-records/reindex/status until it completes (bounded), and says
// how long it took. The legacy authority index is built too (POST /search/index/inventory/reindex
// {"resourceName": "authority"}), since the authority templates search it.
//   FOLIO_PASSWORD=... node tools/search-index.mjs --url http://127.0.0.1:9130 --tenant fs09000000 [--user folio_admin] [--timeout 600]
//     [--if-incomplete]   (leave an index alone that holds every instance and authority already)
import { parseArgs } from 'node:util';
import { CURRENT, currentProgress } from '../lib/search/reindex.js';
import { setting } from './defaults.mjs';

function die(cause, fix) {
  console.error(`folio-perf: search-index: ${cause}; fix: ${fix}`);
  process.exit(1);
}

let args;
try {
  const options = { url: { type: 'string', default: '' }, tenant: { type: 'string', default: '' }, user: { type: 'string', default: setting('FP_USER') }, timeout: { type: 'string', default: '600' }, 'if-incomplete': { type: 'boolean', default: false } };
  args = parseArgs({ options, strict: true }).values;
} catch (e) {
  die(String(e.message).split('\n')[0].replace(/\. To specify a positional argument.*$/, ''), 'use --url URL --tenant TENANT [--user USER] [--timeout SECONDS] [--if-incomplete]');
}
const password = process.env.FOLIO_PASSWORD;
if (!args.url || !args.tenant) die('--url and --tenant are required', 'e.g. --url http://127.0.0.1:9130 --tenant fs09000000');
if (!password) die('FOLIO_PASSWORD is not set', 'export FOLIO_PASSWORD=<operator password>');
const timeoutS = Number(args.timeout);
if (!Number.isFinite(timeoutS) || timeoutS <= 0) die(`--timeout ${args.timeout} is not a number of seconds`, 'e.g. --timeout 600');
const base = args.url.replace(/\/+$/, '');

async function call(method, path, body, token) {
  const headers = { 'X-Okapi-Tenant': args.tenant, Accept: 'application/json', 'Content-Type': 'application/json' };
  if (token) headers['X-Okapi-Token'] = token;
  let res;
  try {
    res = await fetch(base + path, { method, headers, body: body === null ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
  } catch (e) {
    die(`${method} ${base}${path} failed (${e.cause?.code || e.message})`, 'start minifolio (make run WORKFLOW=search) or correct --url');
  }
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: reported with the status below
  }
  return { status: res.status, headers: res.headers, json, text };
}

async function login() {
  const r = await call('POST', '/authn/login-with-expiry', { username: args.user, password }, null);
  if (r.status === 201) {
    const m = /folioAccessToken=([^;]+)/.exec(r.headers.get('set-cookie') || '');
    if (m) return m[1];
  }
  const legacy = await call('POST', '/authn/login', { username: args.user, password }, null);
  const token = legacy.headers.get('x-okapi-token');
  if (legacy.status !== 201 || !token) die(`login of ${args.user} to tenant ${args.tenant} answered ${legacy.status} ${legacy.text.slice(0, 120)}`, 'check --tenant, --user and FOLIO_PASSWORD');
  return token;
}

const t0 = Date.now();
// The operator's token runs out during a long reindex (FOLIO's expiring tokens, minifolio's
// --token-ttl: 10 minutes by default; a million instances take longer on a busy machine, PTF's
// sizes on any): a 401 logs in again, where polling on would only wait for the timeout.
let token = await login();
async function authed(method, path, body) {
  let r = await call(method, path, body, token);
  if (r.status === 401) {
    token = await login();
    r = await call(method, path, body, token);
  }
  return r;
}
// --if-incomplete: an index that already holds every instance and authority of the tenant's
// storage is left as it is (a reindex of millions of instances takes minutes).
if (args['if-incomplete']) {
  const total = async (path) => {
    const r = await authed('GET', `${path}?${path.startsWith('/search') ? `query=${encodeURIComponent('cql.allRecords=1')}&` : ''}limit=0`, null);
    return r.status === 200 && Number.isInteger(r.json?.totalRecords) ? r.json.totalRecords : -1;
  };
  const [inIndex, inStorage, authIndex, authStorage] = await Promise.all(['/search/instances', '/instance-storage/instances',
    '/search/authorities', '/authority-storage/authorities'].map(total));
  if (inStorage > 0 && inIndex === inStorage && authIndex === authStorage) {
    console.log(`==> search-index: ${args.tenant} is indexed already (${inIndex} instances, ${authIndex} authority headings); left as it is`);
    process.exit(0);
  }
}
const started = await authed(CURRENT.start.method, CURRENT.start.path, CURRENT.start.body);
if (started.status < 200 || started.status > 299) die(`${CURRENT.start.path} answered ${started.status} ${started.text.slice(0, 160)}`, 'check that mod-search is enabled for the tenant (minifolio up --opensearch URL)');
let p = { state: 'running', detail: '' };
while (Date.now() - t0 < timeoutS * 1000) {
  await new Promise((r) => setTimeout(r, 1000));
  const s = await authed('GET', CURRENT.status, null);
  if (s.status !== 200) continue;
  p = currentProgress(s.json);
  if (p.state !== 'running') break;
}
if (p.state !== 'completed') die(`the reindex of ${args.tenant} ended ${p.state === 'running' ? `unfinished after ${timeoutS} s` : p.state} (${p.detail})`, 'read the mod-search log in .stack/logs/');
const auth = await authed('POST', '/search/index/inventory/reindex', { recreateIndex: true, resourceName: 'authority' });
if (auth.status < 200 || auth.status > 299) die(`the authority reindex of ${args.tenant} answered ${auth.status} ${auth.text.slice(0, 160)}`, 'read the mod-search log in .stack/logs/');
// The authority job reports through the legacy job endpoint: done when it is no longer in progress.
// Its index is recreated with refreshes off until the end, so its count alone reads 0 for as long as
// the job runs (minutes at a million instances): wait for the job first, then for the count to settle.
const jobId = auth.json?.id;
for (let status = 'In progress'; jobId && status === 'In progress' && Date.now() - t0 < timeoutS * 1000; ) {
  await new Promise((r) => setTimeout(r, 1000));
  const j = await authed('GET', `/instance-storage/reindex/${jobId}`, null);
  // A FOLIO that does not report the job there: the count alone decides, as below.
  status = j.status === 200 ? (j.json?.jobStatus ?? 'unknown') : 'unknown';
}
let last = -1;
for (let stable = 0; stable < 2 && Date.now() - t0 < timeoutS * 1000; ) {
  await new Promise((r) => setTimeout(r, 1000));
  const c = await authed('GET', `/search/authorities?query=${encodeURIComponent('cql.allRecords=1')}&limit=0`, null);
  const n = c.json && Number.isInteger(c.json.totalRecords) ? c.json.totalRecords : -1;
  stable = n >= 0 && n === last ? stable + 1 : 0;
  last = n;
}
const inst = await authed('GET', `/search/instances?query=${encodeURIComponent('cql.allRecords=1')}&limit=0`, null);
// Indexed means both counts were read: never report a tenant as indexed on unanswered counts.
if (last < 0 || !Number.isInteger(inst.json?.totalRecords)) {
  die(`the index of ${args.tenant} could not be counted within ${timeoutS} s (instances: ${inst.status}, authorities: ${last < 0 ? 'no answer' : last})`, 'read the mod-search log in .stack/logs/, or give it longer with --timeout');
}
console.log(`==> search-index: ${args.tenant} indexed in ${((Date.now() - t0) / 1000).toFixed(1)} s (${inst.json.totalRecords} instances, ${last} authority headings)`);
