// The mod-search workflow as the runner (lib/k6/run.js) sees it: PTF's multi-tenant search plan
// run by 1 and 20 users, first alone (phase baseline), then while another tenant is reindexed
// (phase reindex, only with REINDEX_TENANT). Profiles, settings, the sub-metrics its report reads,
// the reindex scenarios, its description. Pure. Its k6 lifecycle is lib/k6/search.js.

import { durationMs } from '../profiles.js';
import { describeConfig } from '../config.js';
import { TEMPLATE_NAMES } from '../search/templates.js';
import { REINDEX_APIS } from '../search/reindex.js';
import { METRICS, TAGS, REINDEX_OUTCOMES, subMetric } from '../metrics.js';
import { parseFlag, oneOf } from '../settings.js';
import { parsePlatform } from '../platforms.js';

// No think time: PTF's search fragments have none (one login pause per thread only).
export const SEARCH_PROFILES = {
  // Does every template answer? 1 user, 1 minute per phase.
  smoke: { steps: [1], duration: '1m', gracefulStop: '10s', think: 'none', warmup: '0s', about: '1 VU x 1 min per phase' },
  // The report's shape, short enough to watch: 1 and 20 users, 1 minute per phase, after a
  // 30 s warm-up (a cold OpenSearch answers the first minute twice as slowly as the next).
  demo: { steps: [1, 20], duration: '1m', gracefulStop: '15s', think: 'none', warmup: '30s', about: '1 and 20 VUs x 1 min per phase' },
  // What PTF ran for the Lotus mod-search report: 1 and 20 users, 60 minutes per phase.
  ptf: { steps: [1, 20], duration: '60m', gracefulStop: '60s', think: 'none', warmup: '5m', about: '1 and 20 VUs x 60 min per phase' },
};

export const DEFAULT_DATA_DIR = 'data/search';
const TENANT = /^[a-z][a-z0-9_]{0,62}$/;
// Settings of the check-in/check-out workflow that mean nothing here: refused, not ignored.
const CICO_ONLY = ['THINK', 'THINK_OFFSET', 'DISTRIBUTION', 'PREFLIGHT', 'POOL_PER_VU', 'CHECKIN_POOL', 'CHECKIN_WINDOW', 'SERVICE_POINT_ID'];

function parseData(v) {
  if (v === undefined || v === '') return { dir: DEFAULT_DATA_DIR, generated: true };
  if (typeof v === 'string' && v.startsWith('csv:') && v.length > 4) return { dir: v.slice(4).replace(/\/+$/, ''), generated: false };
  throw new Error(`DATA "${v}" is not a data source of the search workflow; fix: unset DATA (folio-perf's files in ${DEFAULT_DATA_DIR}, make search-data) or use DATA=csv:<dir> with PTF's query files`);
}

// The warm-up: 1 user running the templates before the first step, tagged phase=warmup, which
// no table reads. WARMUP overrides the profile's (0 = none).
const WARMUP_GRACE_MS = 5000;
function parseWarmup(env) {
  const p = SEARCH_PROFILES[env.PROFILE || 'smoke'];
  const text = env.WARMUP !== undefined && env.WARMUP !== '' ? env.WARMUP : p ? p.warmup : '0s';
  if (text === '0') return 0;
  const ms = durationMs(text);
  if (ms === null || ms > 3600000) throw new Error(`WARMUP "${text}" is not a duration up to 1h; fix: use e.g. WARMUP=30s, or WARMUP=0 for none`);
  return ms;
}

function parsePoll(v) {
  const text = v === undefined || v === '' ? '5s' : v;
  const ms = durationMs(text);
  if (ms === null || ms < 500 || ms > 300000) throw new Error(`REINDEX_POLL "${text}" is not a poll interval between 0.5s and 5m; fix: use e.g. REINDEX_POLL=5s`);
  return ms;
}

export const search = {
  name: 'search',
  script: 'scripts/mod-search.js',
  profiles: SEARCH_PROFILES,
  // The reindex phase runs only when a tenant to reindex is named (a real reindex is disruptive).
  phases: (env) => (env.REINDEX_TENANT ? ['baseline', 'reindex'] : ['baseline']),
  // The query values come from files, not FOLIO's database: no DATA=db, no database settings.
  config: { noData: true },
  baselines: false,
  report: '../search/summary.js',
  // The first step starts after the warm-up and its graceful stop.
  warmupMs: (env) => {
    const ms = parseWarmup(env);
    return ms > 0 ? ms + WARMUP_GRACE_MS : 0;
  },
  templates: TEMPLATE_NAMES,

  settings(env, profile, cfg) {
    for (const k of CICO_ONLY) {
      if (env[k] !== undefined && env[k] !== '') throw new Error(`${k} is a setting of the check-in/check-out workflow, not of the search workflow; fix: unset ${k}`);
    }
    const data = parseData(env.DATA);
    let reindexTenant = null;
    if (env.REINDEX_TENANT !== undefined && env.REINDEX_TENANT !== '') {
      reindexTenant = env.REINDEX_TENANT;
      if (!TENANT.test(reindexTenant)) throw new Error(`REINDEX_TENANT "${reindexTenant}" is not a FOLIO tenant id; fix: use lower-case letters, digits and _ starting with a letter, e.g. REINDEX_TENANT=fs09000001`);
      if (reindexTenant === cfg.folio.tenant) throw new Error(`REINDEX_TENANT "${reindexTenant}" is the searched tenant; fix: reindex another tenant (the report searched tenant B while tenant A was reindexed), e.g. REINDEX_TENANT=fs09000001`);
    } else {
      for (const k of ['REINDEX_API', 'REINDEX_POLL', 'REINDEX_REPEAT']) {
        if (env[k] !== undefined && env[k] !== '') throw new Error(`${k} is set but REINDEX_TENANT is not, so no reindex runs; fix: set REINDEX_TENANT=<tenant to reindex> or unset ${k}`);
      }
    }
    return {
      data,
      warmupMs: parseWarmup(env),
      reindex: reindexTenant
        ? // api null: the target's mod-search decides in setup (lib/search/reindex.js reindexApiFor).
          { tenant: reindexTenant, api: oneOf(env.REINDEX_API, 'REINDEX_API', REINDEX_APIS, null), pollMs: parsePoll(env.REINDEX_POLL), repeat: parseFlag(env.REINDEX_REPEAT, 'REINDEX_REPEAT') }
        : null,
      steps: profile.windows.filter((w) => w.phase === 'baseline').map((w) => w.vus),
      platform: parsePlatform(env.PLATFORM),
    };
  },

  // One VU per reindex phase: it starts with the phase and may run as long as the phase does.
  scenarios(run) {
    const out = {};
    if (run.warmupMs > 0) {
      out.warmup = { executor: 'constant-vus', vus: 1, duration: `${Math.round(run.warmupMs / 1000)}s`, startTime: '0s', gracefulStop: `${WARMUP_GRACE_MS / 1000}s`, tags: { vus: '1', phase: 'warmup' } };
    }
    if (!run.reindex) return out;
    for (const w of run.profile.windows) {
      if (w.phase !== 'reindex') continue;
      out[`reindex_${w.key.slice(4)}`] = {
        executor: 'per-vu-iterations',
        vus: 1,
        iterations: 1,
        startTime: `${Math.round(w.startMs / 1000)}s`,
        maxDuration: `${Math.round(w.durationMs / 1000)}s`,
        gracefulStop: '30s',
        exec: 'reindex',
        tags: { vus: String(w.vus), phase: 'reindex' },
      };
    }
    return out;
  },

  // The sub-metrics the report tables read (k6 computes a sub-metric only if it has a threshold).
  thresholdInputs(run) {
    const vus = [...new Set(run.profile.steps)];
    const phases = run.reindex ? ['baseline', 'reindex'] : ['baseline'];
    const extra = [];
    for (const name of TEMPLATE_NAMES) {
      for (const v of vus) {
        for (const p of phases) {
          extra.push([subMetric(METRICS.httpDuration, { [TAGS.name]: name, [TAGS.vus]: v, [TAGS.phase]: p }), 'max>=0']);
          extra.push([subMetric(METRICS.searchSlow, { [TAGS.name]: name, [TAGS.vus]: v, [TAGS.phase]: p }), 'count>=0']);
        }
      }
    }
    if (run.reindex) {
      for (const v of vus) {
        extra.push([subMetric(METRICS.reindexDuration, { [TAGS.vus]: v }), 'max>=0']);
        for (const o of REINDEX_OUTCOMES) extra.push([subMetric(METRICS.reindexDuration, { [TAGS.vus]: v, [TAGS.outcome]: o }), 'max>=0']);
        extra.push([subMetric(METRICS.reindexStartedAt, { [TAGS.vus]: v }), 'max>=0']);
        extra.push([subMetric(METRICS.reindexEndedAt, { [TAGS.vus]: v }), 'max>=0']);
      }
    }
    return { vus: [], transactions: [], apiNames: [], extra };
  },

  describe(run) {
    const { cfg, profile, data, reindex } = run;
    const target = describeConfig(cfg).replace(/ db=\S+ data=\S+ checkin-pool=\S+/, '');
    const phases = reindex ? 'baseline then reindex' : 'baseline only';
    const re = reindex ? ` reindex=${reindex.tenant} (${reindex.api || "the target's"} API, poll ${reindex.pollMs / 1000}s${reindex.repeat ? ', repeated through the phase' : ''})` : ' reindex=none';
    const warm = run.warmupMs > 0 ? `${run.warmupMs / 1000}s warm-up, ` : '';
    return `${target} profile=${profile.name} (${warm}${profile.steps.join('/')} VUs x ${profile.durationMs / 1000}s per phase, ${phases}) data=${data.generated ? data.dir : `csv:${data.dir}`}${re}`;
  },
};
