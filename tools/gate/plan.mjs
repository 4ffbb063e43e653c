// The gate on your FOLIO (.github/workflows/folio-gate.yml, docs/gate.md): what one job will do,
// from the settings the workflow's inputs become, checked before anything is built or contacted.
// Each problem is one line naming the workflow input (and its variable) with the fix. Pure.
//
//   GATE_MODE           baseline: GATE_RUNS runs of the FOLIO as it is, a baseline file of them;
//                       candidate: one run, judged against a baseline by `folio-perf verdict`
//   FOLIO_URL, FOLIO_TENANT, FOLIO_USER, DATA, FOLIO_DB_HOST/PORT/NAME/USER/SSLMODE, RELEASE,
//   PROFILE, DURATION   what every `folio-perf run` reads (docs/settings.md), here set explicitly,
//                       so that no field of env/local.json (minifolio's) reaches your FOLIO's run
//                       (and FOLIO_ENV/K6_ENV are removed from the runs' environment)
//   GATE_SETTINGS       more NAME=VALUE lines for the runs (THINK=..., VUS=..., CHECKIN_POOL=...)
//   GATE_BASELINE       candidate: a baseline file, relative to GATE_REPOSITORY_DIR (your
//                       repository's checkout); else GATE_BASELINE_DIR/baseline.json (the artifact
//                       of the baseline job, downloaded; GATE_BASELINE_RUN_ID names that job's run)
//   GATE_CONTROL, GATE_ALPHA   the verdict's --control (speed, none, or a metric) and --alpha
import { isAbsolute, join } from 'node:path';
import { buildProfile } from '../../lib/profiles.js';
import { testidStamp } from '../../lib/testid.js';
import { OLD_TARGET_ENV, TARGET_ENV } from '../../lib/config.js';

export class GateError extends Error {
  constructor(message) {
    super(message);
    this.name = 'GateError';
  }
}

// The workflow input each variable comes from, so that a message names what the user edits.
export const INPUTS = {
  GATE_MODE: 'mode',
  FOLIO_URL: 'folio-url',
  FOLIO_TENANT: 'tenant',
  FOLIO_USER: 'user',
  RELEASE: 'release',
  PROFILE: 'profile',
  DURATION: 'duration',
  GATE_RUNS: 'runs',
  GATE_SETTINGS: 'settings',
  DATA: 'data',
  FOLIO_DB_HOST: 'db-host',
  FOLIO_DB_PORT: 'db-port',
  FOLIO_DB_NAME: 'db-name',
  FOLIO_DB_USER: 'db-user',
  FOLIO_DB_SSLMODE: 'db-sslmode',
  GATE_BASELINE: 'baseline',
  GATE_BASELINE_ARTIFACT: 'baseline-artifact',
  GATE_BASELINE_RUN_ID: 'baseline-run-id',
  GATE_CONTROL: 'control',
  GATE_ALPHA: 'alpha',
};
const named = (v) => `${INPUTS[v]} (${v})`;

export const MODES = ['baseline', 'candidate'];
// The measured setting (make bench-gate, docs/benchmarks.md): 4 runs; the verdict needs 2.
export const DEFAULT_RUNS = 4;
const MAX_RUNS = 20;
const RELEASE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const SETTING = /^([A-Z][A-Z0-9_]*)=(.*)$/;
// What the gate sets from its own inputs: given again in `settings`, one of the two would lose.
const OWN = ['FOLIO_URL', 'FOLIO_TENANT', 'FOLIO_USER', 'FOLIO_DB_HOST', 'FOLIO_DB_PORT', 'FOLIO_DB_NAME', 'FOLIO_DB_USER', 'FOLIO_DB_SSLMODE', 'DATA', 'RELEASE', 'PROFILE', 'DURATION'];
// Settings that would point the run elsewhere than the inputs say, or make it another kind of run.
const REFUSED = {
  TESTID: 'the gate names its runs',
  [TARGET_ENV]: 'the inputs name your FOLIO',
  [OLD_TARGET_ENV]: 'the inputs name your FOLIO',
  MINIFOLIO_PROFILE: 'minifolio is not your FOLIO',
  BASELINE: 'the gate judges with the verdict, after the run',
};

/** Where a job's files go (uploaded as its artifact), relative to folio-perf's checkout. */
export const resultsDir = (mode) => join('results', `gate-${mode}`);
/** The artifact's name: the baseline job's is the input that the candidate job downloads. */
export const artifactName = (mode, env) => (mode === 'baseline' ? env.GATE_BASELINE_ARTIFACT || 'folio-perf-baseline' : 'folio-perf-candidate');

const fail = (message) => {
  throw new GateError(message);
};
const value = (env, name) => String(env[name] ?? '').trim();

function required(env, name, fix) {
  const v = value(env, name);
  if (v === '') fail(`${named(name)} is empty; fix: ${fix}`);
  return v;
}

/** The extra NAME=VALUE lines of GATE_SETTINGS, as [name, value] pairs. */
export function parseSettings(text) {
  const out = [];
  for (const raw of String(text || '').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = SETTING.exec(line);
    if (!m) fail(`${named('GATE_SETTINGS')}: "${line}" is not a NAME=VALUE line; fix: one setting a line, e.g. THINK=ptf (docs/settings.md)`);
    const [, name, v] = m;
    if (/(PASSWORD|SECRET|PASSWD|TOKEN)$/.test(name)) fail(`${named('GATE_SETTINGS')}: ${name} is a secret; fix: pass it as a secret of the workflow (FOLIO_PASSWORD, FOLIO_DB_PASSWORD), never as an input`);
    if (OWN.includes(name)) fail(`${named('GATE_SETTINGS')}: ${name} is set by the input ${INPUTS[name]}; fix: remove it from settings and set ${INPUTS[name]}`);
    if (REFUSED[name]) fail(`${named('GATE_SETTINGS')}: ${name} cannot be set here (${REFUSED[name]}); fix: remove it`);
    out.push([name, v]);
  }
  return out;
}

/**
 * The job's plan from its environment. profiles: the workflow's profile table (its descriptor's
 * `profiles`). baseline: the parsed baseline document, when the caller has read it (candidate
 * mode): its profile and duration become the defaults and must match. Throws GateError.
 */
export function gatePlan(env, { profiles, baseline = null, now = new Date() }) {
  const mode = value(env, 'GATE_MODE');
  if (!MODES.includes(mode)) fail(`${named('GATE_MODE')} is "${mode}"; fix: mode: baseline (record the baseline on the current release) or mode: candidate (judge the upgraded FOLIO against it)`);

  const url = required(env, 'FOLIO_URL', 'your FOLIO\'s gateway (Okapi or Kong), e.g. folio-url: https://okapi-staging.example.org');
  if (!/^https?:\/\/[^/\s?#]+(\/[^\s?#]*)?$/.test(url)) fail(`${named('FOLIO_URL')} "${url}" is not an http(s) URL; fix: e.g. folio-url: https://okapi-staging.example.org`);
  const tenant = required(env, 'FOLIO_TENANT', 'the tenant the runs check out in (a test tenant), e.g. tenant: diku');
  const user = required(env, 'FOLIO_USER', 'the operator account the runs log in as, e.g. user: perf_operator (its password: the secret FOLIO_PASSWORD)');

  const release = value(env, 'RELEASE') || mode;
  if (!RELEASE.test(release)) fail(`${named('RELEASE')} "${release}" is not a release label; fix: letters, digits, . _ - (max 64), e.g. release: quesnelia`);

  let runs = 1;
  if (mode === 'baseline') {
    const text = value(env, 'GATE_RUNS') || String(DEFAULT_RUNS);
    runs = Number(text);
    if (!/^\d+$/.test(text) || runs < 2 || runs > MAX_RUNS) {
      fail(`${named('GATE_RUNS')} "${text}" is not a number of baseline runs from 2 to ${MAX_RUNS}; fix: runs: ${DEFAULT_RUNS} (the verdict needs 2 to see the run-to-run spread; ${DEFAULT_RUNS} is the measured setting)`);
    }
  }

  // A candidate is run as its baseline was, unless the inputs say otherwise (and then they must agree).
  const profile = value(env, 'PROFILE') || baseline?.profile || 'smoke';
  if (baseline && baseline.profile && profile !== baseline.profile) fail(`${named('PROFILE')} is ${profile}, the baseline's runs ran ${baseline.profile}; fix: profile: ${baseline.profile} (a candidate is judged only against runs of the same load)`);
  const duration = value(env, 'DURATION') || baseline?.runs?.[0]?.stepDuration || '';
  let p;
  try {
    p = buildProfile(profile, { duration: duration || undefined }, { profiles });
  } catch (e) {
    fail(`${e.message.replace(/^PROFILE /, `${named('PROFILE')} `).replace(/^DURATION /, `${named('DURATION')} `)}`);
  }

  const settings = parseSettings(env.GATE_SETTINGS);
  const repoDir = value(env, 'GATE_REPOSITORY_DIR');
  const inRepo = (path) => (isAbsolute(path) || !repoDir ? path : join(repoDir, path));

  const data = value(env, 'DATA') || 'db';
  const runEnv = { FOLIO_URL: url, FOLIO_TENANT: tenant, FOLIO_USER: user, RELEASE: release, PROFILE: profile };
  if (duration) runEnv.DURATION = duration;
  if (data === 'db') {
    // Each named, so that none falls back to env/local.json's values (minifolio's database).
    runEnv.DATA = 'db';
    runEnv.FOLIO_DB_HOST = required(env, 'FOLIO_DB_HOST', 'your FOLIO database\'s host (read-only use: test data is selected once before the load), or data: csv:<dir in your repository>');
    runEnv.FOLIO_DB_PORT = value(env, 'FOLIO_DB_PORT') || '5432';
    runEnv.FOLIO_DB_NAME = required(env, 'FOLIO_DB_NAME', 'the FOLIO database\'s name, e.g. db-name: folio');
    runEnv.FOLIO_DB_USER = required(env, 'FOLIO_DB_USER', 'a database user that can read the FOLIO schemas, e.g. db-user: folio_ro (its password: the secret FOLIO_DB_PASSWORD)');
    runEnv.FOLIO_DB_SSLMODE = value(env, 'FOLIO_DB_SSLMODE') || 'prefer';
  } else if (/^csv:.+/.test(data)) {
    runEnv.DATA = `csv:${inRepo(data.slice(4))}`;
  } else {
    fail(`${named('DATA')} "${data}" is not a data source; fix: data: db (your FOLIO's database, db-host and the secret FOLIO_DB_PASSWORD) or data: csv:<dir in your repository> (available.csv, checked_out.csv, user_barcodes.csv)`);
  }

  const control = value(env, 'GATE_CONTROL') || 'speed';
  const alphaText = value(env, 'GATE_ALPHA') || '0.05';
  const alpha = Number(alphaText);
  if (!(alpha > 0 && alpha < 0.5)) fail(`${named('GATE_ALPHA')} "${alphaText}" is not a false-alarm rate; fix: a number in (0, 0.5), e.g. alpha: 0.05`);

  let baselineFile = null;
  let baselineLabel = null; // how the summary names it: the file the user gave, or the artifact
  if (mode === 'candidate') {
    const given = value(env, 'GATE_BASELINE');
    const dir = value(env, 'GATE_BASELINE_DIR');
    const runId = value(env, 'GATE_BASELINE_RUN_ID');
    if (given) {
      baselineFile = inRepo(given);
      baselineLabel = given;
    } else if (runId) {
      baselineFile = join(dir || '.', 'baseline.json');
      baselineLabel = `baseline.json of the artifact ${artifactName('baseline', env)} of run ${runId}`;
    } else fail(`a candidate needs its baseline: ${named('GATE_BASELINE')} and ${named('GATE_BASELINE_RUN_ID')} are both empty; fix: baseline: <its file in your repository>, or baseline-run-id: <the run of the baseline job> (its artifact ${artifactName('baseline', env)})`);
  }

  // Valid test ids whatever the release (64 characters at most, lib/testid.js allows 128).
  const stamp = testidStamp(now);
  const testids = mode === 'baseline' ? Array.from({ length: runs }, (_, i) => `gate-${release}-${stamp}-${i + 1}`) : [`gate-${release}-${stamp}`];

  return {
    mode,
    runs,
    release,
    profile,
    duration: duration || null,
    stepMs: p.durationMs,
    steps: p.steps,
    settings,
    runEnv,
    control,
    alpha,
    baselineFile,
    baselineLabel,
    testids,
    out: resultsDir(mode),
    artifact: artifactName(mode, env),
    target: { url, tenant, user },
  };
}

/** `folio-perf run`'s arguments for one run of the plan (no secret: those stay in the environment). */
export function runArgs(plan, testid) {
  return ['run', ...Object.entries({ ...plan.runEnv, TESTID: testid }).map(([k, v]) => `${k}=${v}`), ...plan.settings.map(([k, v]) => `${k}=${v}`)];
}

/** `folio-perf verdict`'s arguments for the candidate (GATE_CONTROL none: absolute quantiles). */
export function verdictArgs(plan, testid) {
  return ['verdict', testid, '--baseline', plan.baselineFile, '--alpha', String(plan.alpha), ...(plan.control === 'none' ? [] : ['--control', plan.control])];
}
