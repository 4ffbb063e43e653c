// The mod-search workflow end to end on the real stack: k6 -> minifolio (gateway + mod-search) ->
// OpenSearch, tenant fs09000000 searched while fs09000001 is reindexed in the background, samples
// into InfluxDB, the report tables; and bad settings stopping the script before any load. The run
// goes through `folio-perf run WORKFLOW=search`, the same path as `make run WORKFLOW=search`.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repo, env, bin, influxQuery, run, valuesInRun, cellsOfRun, ownMinifolioPort } from './helpers.mjs';
import { TEMPLATES } from '../../lib/search/templates.js';
import { METRICS as M, PHASES } from '../../lib/metrics.js';

const searched = 'fs09000000';
const reindexed = 'fs09000001';
const testid = `e2e-search-${Date.now()}`;
const q = (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

// A known data set in both tenants: instances with titles, contributors, subjects and languages
// from the word list, and MARC authorities (the CICO suite reseeds fs09000000 without them).
before(() => {
  for (const tenant of [searched, reindexed]) {
    const r = run(bin('minifolio'), ['seed', '--force', '--quiet', '--tenant', tenant, '--items', '3000', '--users', '40', '--authorities', '500'], {
      env: { MINIFOLIO_DB: env('FP_PG_DSN') },
      timeoutMs: 300_000,
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  }
});

let result;
function searchRun() {
  if (result) return result;
  // Two short phases at 1 user: 30 s alone, then 30 s while fs09000001 is reindexed (polled
  // every second, so the window is sampled several times even when the reindex is quick).
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { WORKFLOW: 'search', PROFILE: 'smoke', DURATION: '30s', MINIFOLIO_PROFILE: 'fast', TESTID: testid, REINDEX_TENANT: reindexed, REINDEX_POLL: '1s' },
    timeoutMs: 600_000,
  });
  let summary = null;
  try {
    summary = JSON.parse(readFileSync(join(repo, 'results', testid, 'summary.json'), 'utf8'));
  } catch {
    // asserted below
  }
  result = { ...r, out: r.stdout + r.stderr, summary };
  return result;
}

test('a short run: tenant B searched alone, then while tenant A reindexes; tables printed and written', () => {
  const r = searchRun();
  assert.equal(r.status, 0, r.out.slice(-6000));
  // For the dashboards suite, as the CICO suite leaves last-cico-testid.
  writeFileSync(join(env('FP_STACK_DIR'), 'last-search-testid'), testid);
  for (const title of ['1 user, baseline (seconds', '1 user, under reindex (seconds', '1 user: baseline vs under reindex', `Background reindex of ${reindexed}`]) {
    assert.ok(r.out.includes(title), `missing "${title}" in the output`);
  }
  assert.match(r.out, /averages: regular \d+\.\d{3} s, wildcard \d+\.\d{3} s, wildcard prefix \d+\.\d{3} s/);
  assert.match(r.out, /total requests: [1-9]\d* \(/);
  const s = r.summary;
  assert.ok(s, 'summary.json written');
  assert.equal(s.meta.workflow, 'search');
  assert.equal(s.checks.fails, 0, JSON.stringify(s.checks.failing));
  const steps = s.tables.searchSteps;
  assert.deepEqual(steps.map((x) => [x.vus, x.phase]), [[1, 'baseline'], [1, 'reindex']]);
  for (const st of steps) {
    assert.equal(st.rows.length, TEMPLATES.length, `${st.phase}: every template has a row`);
    for (const row of st.rows) assert.ok(row.total > 0 && row.p95 >= row.p50 && row.max >= row.p99, row.name);
    assert.equal(st.total, st.rows.reduce((n, x) => n + x.total, 0));
  }
  assert.equal(s.tables.phaseComparison.length, 1);
  const [re] = s.tables.reindex;
  assert.ok(re.outcomes.completed >= 1, `reindex outcomes: ${JSON.stringify(re.outcomes)}`);
  assert.ok(re.startedAt && re.endedAt && re.endedAt > re.startedAt, 'the window has a start and an end');
});

test('InfluxDB: the reindex window (reindex_running 1 then 0, tenant A) and its completed duration', async () => {
  assert.equal(searchRun().status, 0);
  const run1 = await influxQuery(`SELECT max("value"), last("value"), count("value") FROM "${M.reindexRunning}" WHERE "testid" = ${q(testid)} AND "tenant" = ${q(reindexed)}`);
  assert.equal(run1.length, 1, 'reindex_running recorded for tenant A');
  const [, max, last, count] = run1[0].values[0];
  assert.deepEqual([max, last], [1, 0]);
  assert.ok(count >= 2);
  const stages = (await influxQuery(`SHOW TAG VALUES FROM "${M.reindexRunning}" WITH KEY = "stage" WHERE "testid" = ${q(testid)}`))[0].values.map((v) => v[1]);
  assert.ok(stages.includes('done'), `stages: ${stages}`);
  const dur = await influxQuery(`SELECT count("value") FROM "${M.reindexDuration}" WHERE "testid" = ${q(testid)} AND "outcome" = 'completed' AND "phase" = 'reindex'`);
  assert.ok(dur.length === 1 && dur[0].values[0][1] >= 1, 'a completed reindex_duration sample');
});

test('InfluxDB: every template has samples by name, group and kind in both phases, none failed', async () => {
  assert.equal(searchRun().status, 0);
  const series = await influxQuery(
    `SELECT count("value") FROM "${M.httpDuration}" WHERE "testid" = ${q(testid)} AND "workflow" = 'search' AND "name" =~ /^GET \\/search\\/(instances:|authorities) / GROUP BY "name", "group", "kind", "phase", "vus"`,
  );
  const seen = new Map(series.map((x) => [`${x.tags.name}|${x.tags.phase}`, x]));
  for (const t of TEMPLATES) {
    for (const phase of PHASES) {
      const x = seen.get(`${t.name}|${phase}`);
      assert.ok(x && x.values[0][1] > 0, `${t.name} has no ${phase} samples`);
      assert.deepEqual([x.tags.group, x.tags.kind, x.tags.vus], [t.group, t.kind, '1'], t.name);
    }
  }
  assert.equal(series.length, TEMPLATES.length * 2, 'no other search name or tag combination');
  const failed = await influxQuery(`SELECT sum("value") FROM "${M.httpFailed}" WHERE "testid" = ${q(testid)}`);
  assert.equal(failed[0].values[0][1], 0, 'no failed request (searches, logins, reindex calls)');
  // The requests over 700 ms in InfluxDB are exactly those the tables count.
  const slow = await influxQuery(`SELECT sum("value") FROM "${M.searchSlow}" WHERE "testid" = ${q(testid)}`);
  const tableSlow = searchRun().summary.tables.searchSteps.reduce((n, st) => n + st.slow, 0);
  assert.equal(slow.length ? slow[0].values[0][1] : 0, tableSlow);
});

test('InfluxDB: none of the query values the run drew from data/search is in any tag or field of its points', async () => {
  assert.equal(searchRun().status, 0);
  // The values of two words or more (sentences, names, subjects): a single dictionary word may be a
  // word of a request's name too (`expiry` of POST /authn/login-with-expiry), so for those the
  // check below is that no value holds a query string at all.
  const dir = join(repo, 'data', 'search');
  const values = [...new Set(readdirSync(dir).filter((f) => f.endsWith('.csv'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').map((l) => l.trim())))].filter((v) => /\S\s+\S/.test(v));
  assert.ok(values.length > 1000, `${values.length} query values`);
  const hits = await valuesInRun(testid, values);
  assert.deepEqual(hits.slice(0, 10), [], `${hits.length} values hold a query value of the run`);
  const urls = [...(await cellsOfRun(testid))].filter(([cell]) => /[?&][A-Za-z]+=/.test(cell));
  assert.deepEqual(urls.slice(0, 10), [], 'no value holds a query string');
});

// k6 straight, against the minifolio the run left up: bad settings stop it in init, one line.
// Samples go to InfluxDB under their own testid, so "no request was sent" can be checked there.
function k6Direct(vars, id) {
  return run(bin('k6'), ['run', '--quiet', '-o', `influxdb-lp=${env('FP_INFLUX_URL')}/k6`, join(repo, 'scripts', 'mod-search.js')], {
    env: { FOLIO_ENV: 'local', PROFILE: 'smoke', DURATION: '5s', FOLIO_PASSWORD: 'admin', FOLIO_URL: `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`, K6_NO_USAGE_REPORT: 'true', TESTID: id, ...vars },
    timeoutMs: 60_000,
  });
}
const searchRequests = async (id) => {
  const s = await influxQuery(`SELECT count("value") FROM "${M.httpReqs}" WHERE "testid" = ${q(id)} AND "name" =~ /^GET \\/search\\//`);
  return s.length ? s[0].values[0][1] : 0;
};

test('a bad setting stops the script before any request, with one line (cause, fix)', async () => {
  const cases = [
    [{ REINDEX_TENANT: searched }, /REINDEX_TENANT "fs09000000" is the searched tenant; fix: /],
    [{ REINDEX_TENANT: reindexed, REINDEX_API: 'v3' }, /REINDEX_API "v3" is not one of current, legacy; fix: /],
    [{ PROFILE: 'knee' }, /PROFILE "knee" is unknown; fix: /],
    [{ DATA: 'csv:/nonexistent' }, /query file \/nonexistent\/auth_queries\.csv cannot be read; fix: /],
  ];
  let n = 0;
  for (const [vars, msg] of cases) {
    const id = `${testid}-bad-${n++}`;
    const r = k6Direct(vars, id);
    // k6's log line escapes the quotes of the message.
    const out = (r.stdout + r.stderr).replace(/\\"/g, '"');
    assert.notEqual(r.status, 0, out);
    assert.match(out, msg);
    const lines = out.split('\n').filter((l) => l.includes('folio-perf:'));
    assert.equal(lines.length, 1, out);
    assert.equal(await searchRequests(id), 0, `${JSON.stringify(vars)}: no search request was sent`);
  }
  // A wrong password stops it in setup, before the load (k6's setup abort).
  const id = `${testid}-bad-password`;
  const r = k6Direct({ FOLIO_PASSWORD: 'wrong' }, id);
  assert.notEqual(r.status, 0);
  assert.match((r.stdout + r.stderr).replace(/\\"/g, '"'), /rejected the login of user "folio_admin".*fix: check FOLIO_USER and FOLIO_PASSWORD/);
  assert.equal(await searchRequests(id), 0, 'no search request after a failed login');
});

test('folio-perf run refuses an unknown WORKFLOW with one line', () => {
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], { env: { WORKFLOW: 'circulation' }, timeoutMs: 30_000 });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /^folio-perf: unknown WORKFLOW 'circulation'; fix: use one of WORKFLOW=cico, WORKFLOW=search\n$/);
});

test('search-index logs in again when its token runs out during the reindex (a minifolio with 1-second tokens)', () => {
  // A reindex of PTF's 7.3 million instances outlasts FOLIO's 10-minute tokens; here 3,000
  // instances outlast a 1-second one. Polling on with the dead token would wait for --timeout.
  const port = ownMinifolioPort(4);
  const runDir = join(env('FP_STACK_DIR'), 'minifolio-short-tokens');
  const dbEnv = { MINIFOLIO_DB: env('FP_PG_DSN') };
  try {
    const up = run(bin('minifolio'), ['up', '--run-dir', runDir, '--port', String(port), '--profile', 'fast', '--token-ttl', '1s', '--opensearch', env('FP_OPENSEARCH_URL')], {
      env: dbEnv,
      timeoutMs: 120_000,
    });
    assert.equal(up.status, 0, up.stdout + up.stderr);
    const ix = run(process.execPath, [join(repo, 'tools', 'search-index.mjs'), '--url', `http://127.0.0.1:${port}`, '--tenant', reindexed, '--timeout', '60'], {
      env: { FOLIO_PASSWORD: 'admin' },
      timeoutMs: 90_000,
    });
    assert.equal(ix.status, 0, ix.stdout + ix.stderr);
    assert.match(ix.stdout, new RegExp(`==> search-index: ${reindexed} indexed in [0-9.]+ s \\(3000 instances, [1-9][0-9]* authority headings\\)`));
  } finally {
    run(bin('minifolio'), ['down', '--run-dir', runDir], { env: dbEnv });
  }
});
