// The mod-search workflow's k6 lifecycle: query files (init, once, shared by all VUs), setup (logs
// in to the searched tenant and, with REINDEX_TENANT, to the reindexed one: a bad target or
// password stops the run before load), one iteration = PTF's 7 fragments (46 requests) in a row,
// the background reindex (its own scenario, exec `reindex`) and handleSummary. Created in init
// context by scripts/mod-search.js.

import exec from 'k6/execution';
import { sleep } from 'k6';
import { SharedArray } from 'k6/data';
import { Counter, Gauge, Trend } from 'k6/metrics';
import { Session } from './auth.js';
import { makeHandleSummary } from './summary-out.js';
import { makeClient, failureLog } from './folio.js';
import { send, ANY_STATUS } from './http.js';
import { fatal } from './run.js';
import { TEMPLATES, searchRequest, INDEX_PATHS, indexCount, emptyIndexes, emptyIndexWarning } from '../search/templates.js';
import { FILES, parseRows, valuesAt } from '../search/data.js';
import { CURRENT, LEGACY, currentProgress, legacyProgress, reindexApiFor } from '../search/reindex.js';
import { platform as platformOf, platformOfRecord } from '../platforms.js';
import { METRICS, SEARCH_SLOW_MS } from '../metrics.js';
import { parseJson, errorDetail } from '../folio.js';

// The reindex VU's calls carry their own names, so they never count in the templates' numbers.
const REINDEX_PREFIX = 'reindex ';

export function searchWorkflow(run, read) {
  const { cfg } = run;
  // One SharedArray per file: parsed once, shared read-only by every VU. A missing or empty file
  // stops the run in init with one line.
  const tables = FILES.map(
    (f) =>
      new SharedArray(`search:${f.file}`, () => {
        const path = `${run.data.dir}/${f.file}`;
        let text;
        try {
          text = read(path);
        } catch (_) {
          const fix = run.data.generated ? 'run make search-data (node tools/search-data.mjs), or point DATA=csv:<dir> at PTF\'s files' : `put PTF's ${f.file} in ${run.data.dir}, or unset DATA to use folio-perf's generated files`;
          return fatal(new Error(`query file ${path} cannot be read; fix: ${fix}`));
        }
        try {
          return parseRows(text, path);
        } catch (e) {
          return fatal(e);
        }
      }),
  );
  const slow = new Counter(METRICS.searchSlow);
  const reindexRunning = new Gauge(METRICS.reindexRunning);
  const reindexDuration = new Trend(METRICS.reindexDuration, true);
  const reindexStartedAt = new Trend(METRICS.reindexStartedAt);
  const reindexEndedAt = new Trend(METRICS.reindexEndedAt);
  const reindexCfg = run.reindex ? { ...cfg, folio: { ...cfg.folio, tenant: run.reindex.tenant } } : null;

  function abort(msg) {
    exec.test.abort(`folio-perf: ${msg}`);
  }

  function setup() {
    console.log(`folio-perf: ${run.describe()}`);
    const session = new Session(cfg);
    const cause = session.login();
    if (cause) return abort(cause);
    // What the run tests, as the target announces it before the first user starts; from it, the
    // platform and the reindex API of the target's mod-search (unless REINDEX_API names one).
    const record = run.captureRecord(session);
    const target = platformOfRecord(record, run.platform);
    if (target.error) return abort(target.error);
    const reindexApi = run.reindex ? (run.reindex.api ? { api: run.reindex.api, why: 'REINDEX_API' } : reindexApiFor(target.modules)) : null;
    console.log(`folio-perf: platform ${platformOf(target.platform).label} (${target.why})${reindexApi ? `; reindex API ${reindexApi.api} (${reindexApi.why})` : ''}`);
    if (reindexCfg) {
      const c = new Session(reindexCfg).login();
      if (c) return abort(`REINDEX_TENANT: ${c.replace('set FOLIO_TENANT / folio.tenant to an existing tenant', 'set REINDEX_TENANT to an existing tenant other than FOLIO_TENANT')}`);
    }
    // An empty index makes its templates time empty answers: said now, and kept in the summary.
    const client = makeClient({ cfg, session, think: null, log: failureLog('setup') });
    const counts = {};
    for (const path of INDEX_PATHS) {
      const r = client.aside(indexCount(path), { prefix: 'setup ' });
      counts[path] = r.ok ? r.value : null;
    }
    const empty = emptyIndexes(counts);
    for (const e of empty) console.warn(`folio-perf: ${emptyIndexWarning(e, cfg.folio.tenant)}`);
    console.log(`folio-perf: ${TEMPLATES.length} templates; query files in ${run.data.dir}: ${tables.map((t, i) => `${FILES[i].file} ${t.length}`).join(', ')}`);
    return { testid: exec.test.options.tags.testid, startedAt: new Date().toISOString(), record, platform: target.platform, reindexApi: reindexApi ? reindexApi.api : null, indexCounts: counts, emptyIndexes: empty };
  }

  let vu = null;

  // PTF's plan: each iteration runs the 7 fragments in a row, one request per template, values
  // from the next row of each file (files shared by all users and recycled).
  function iteration(data) {
    if (!vu) {
      const log = failureLog(exec.vu.idInTest);
      const session = new Session(cfg, { token: platformOf(data.platform).token });
      vu = { session, log, client: makeClient({ cfg, session, think: null, log }) };
    }
    const cause = vu.session.ensureFresh();
    if (cause) {
      vu.log.failure('login', cause);
      sleep(5);
      return;
    }
    const values = valuesAt(tables, exec.scenario.iterationInTest);
    // Like JMeter's thread group: no new request once the step's time is up, so an iteration of
    // 46 requests does not run on into the graceful stop and inflate the step's Req/s.
    const endsAt = exec.scenario.startTime + (exec.scenario.name === 'warmup' ? run.warmupMs : run.profile.durationMs);
    for (let i = 0; i < TEMPLATES.length; i++) {
      if (Date.now() >= endsAt) return;
      const t = TEMPLATES[i];
      const r = vu.client.call(searchRequest(t, values));
      // Counted exactly, per template, rather than read off a percentile; a failed request's
      // time counts too (the report counted requests, not successes).
      if (r.durationMs > SEARCH_SLOW_MS) slow.add(1, { name: t.name, group: t.group, kind: t.kind });
    }
  }

  // ---- background reindex ------------------------------------------------------------------

  // poll: a progress read, whose every answer is information (a legacy reindex recreates the index,
  // and mod-search answers the count with 500 until it exists again): not a failed request.
  function call(session, method, path, body, name, { poll = false } = {}) {
    const cause = session.ensureFresh();
    if (cause) return { status: 0, body: '', error: cause };
    const res = send(method, cfg.folio.url + path, body === null ? null : JSON.stringify(body), {
      headers: { ...session.headers(), Accept: 'application/json', 'Content-Type': 'application/json' },
      tags: { name: REINDEX_PREFIX + name },
      ...(poll ? { responseCallback: ANY_STATUS } : {}),
    });
    return { status: res.status, body: typeof res.body === 'string' ? res.body : '', error: res.error };
  }

  function countIndexed(session) {
    const r = call(session, 'GET', `${LEGACY.count}?query=${encodeURIComponent(LEGACY.countQuery)}&limit=0`, null, `GET ${LEGACY.count} (indexed count)`, { poll: true });
    const b = r.status === 200 ? parseJson(r.body) : null;
    return b && Number.isInteger(b.totalRecords) ? b.totalRecords : null;
  }

  // One reindex of REINDEX_TENANT from start to an outcome; polls until deadlineMs at the latest.
  function reindexOnce(session, deadlineMs, api) {
    const re = { ...run.reindex, api };
    const tags = { tenant: re.tenant };
    let target = null;
    let jobId = null;
    if (re.api === 'legacy') target = countIndexed(session);
    const start = re.api === 'legacy' ? LEGACY.start : CURRENT.start;
    const t0 = Date.now();
    const r = call(session, start.method, start.path, start.body, `${start.method} ${start.path}`);
    if (r.status < 200 || r.status > 299) {
      console.error(`folio-perf: reindex of ${re.tenant} was not started: ${start.method} ${start.path} answered ${errorDetail(r.status, r.body)}${r.error ? ` (${r.error})` : ''}`);
      // A refused start is a failed reindex: it shows in reindex_duration and the summary.
      reindexRunning.add(0, { ...tags, stage: 'refused' });
      reindexDuration.add(Date.now() - t0, { ...tags, outcome: 'failed' });
      reindexStartedAt.add(t0);
      reindexEndedAt.add(Date.now());
      return 'failed';
    }
    if (re.api === 'legacy') {
      const job = parseJson(r.body);
      jobId = job && job.id;
    }
    reindexStartedAt.add(t0);
    reindexRunning.add(1, { ...tags, stage: 'started' });
    console.log(`folio-perf: reindex of ${re.tenant} started (${re.api} API${jobId ? `, job ${jobId}` : ''})`);
    let outcome = 'timeout';
    let last = null;
    let stable = 0;
    let detail = '';
    while (Date.now() < deadlineMs) {
      sleep(Math.min(re.pollMs, Math.max(0, deadlineMs - Date.now())) / 1000);
      let p;
      if (re.api === 'current') {
        const s = call(session, 'GET', CURRENT.status, null, `GET ${CURRENT.status}`, { poll: true });
        p = s.status === 200 ? currentProgress(parseJson(s.body)) : { state: 'running', stage: 'unknown', detail: `status answered ${s.status}` };
      } else {
        const s = jobId ? call(session, 'GET', LEGACY.job.replace('{id}', encodeURIComponent(jobId)), null, `GET ${LEGACY.job}`, { poll: true }) : { status: 0, body: '' };
        const job = s.status === 200 ? parseJson(s.body) : null;
        const count = countIndexed(session);
        stable = count !== null && count === last ? stable + 1 : 0;
        last = count;
        p = legacyProgress(job ? job.jobStatus : jobId ? '' : 'Ids published', { count, target, stablePolls: stable });
      }
      detail = p.detail;
      if (p.state === 'running') {
        reindexRunning.add(1, { ...tags, stage: p.stage });
        continue;
      }
      outcome = p.state;
      break;
    }
    const t1 = Date.now();
    reindexRunning.add(0, { ...tags, stage: outcome === 'completed' ? 'done' : outcome });
    reindexDuration.add(t1 - t0, { ...tags, outcome });
    reindexEndedAt.add(t1);
    console.log(`folio-perf: reindex of ${re.tenant} ${outcome} after ${((t1 - t0) / 1000).toFixed(1)} s (${detail})`);
    return outcome;
  }

  // The reindex scenario's one iteration: reindex until done (or, with REINDEX_REPEAT, again and
  // again until the phase ends), never past the phase's end.
  function reindex(data) {
    const session = new Session(reindexCfg, { token: platformOf(data.platform).token });
    const cause = session.login();
    if (cause) {
      console.error(`folio-perf: reindex VU cannot log in to ${run.reindex.tenant}: ${cause}`);
      return;
    }
    const phaseMs = run.profile.durationMs;
    const deadline = exec.scenario.startTime + phaseMs;
    do {
      const outcome = reindexOnce(session, deadline, data.reindexApi);
      if (outcome !== 'completed') break;
    } while (run.reindex.repeat && Date.now() < deadline - run.reindex.pollMs);
  }

  const setupOf = (data) => (data && data.setup_data) || {};
  const handleSummary = makeHandleSummary(run, {
    cfg,
    meta: (data) => ({
      tenant: cfg.folio.tenant,
      stepSeconds: run.profile.durationMs / 1000,
      phases: run.reindex ? ['baseline', 'reindex'] : ['baseline'],
      reindexTenant: run.reindex ? run.reindex.tenant : null,
      reindexApi: setupOf(data).reindexApi || (run.reindex ? run.reindex.api : null),
      platform: setupOf(data).platform || null,
      // Searched paths whose index was empty at the start: their templates timed empty answers.
      emptyIndexes: setupOf(data).emptyIndexes || [],
      data: run.data.generated ? run.data.dir : `csv:${run.data.dir}`,
      templates: TEMPLATES.map((t) => ({ name: t.name, group: t.group, kind: t.kind })),
    }),
  });

  return { setup, iteration, reindex, handleSummary };
}
