// Init-context assembly of a run of any workflow: configuration, profile (and phases), the
// workflow's own settings, thresholds and options, all validated before k6 starts any VU. What is
// particular to a workflow comes from its descriptor (lib/workflows/cico.js, search.js). A bad input stops k6 here with one line
// naming the cause and the fix (and a non-zero exit), before any request is sent.
//
// k6 resolves open() paths against the calling script, so the entry script passes a `read`
// function that opens paths relative to the repository root.

import { envFileOf, parseEnvFile, resolveConfig, TARGET_ENV } from '../config.js';
import { defaultsLookup } from '../defaults.js';
import { buildProfile } from '../profiles.js';
import { makeTestId, validTestId } from '../testid.js';
import { SYSTEM_TAGS } from '../metrics.js';

// One line, no stack trace: k6 prints a thrown string as the error, and exits non-zero (107).
export function fatal(e) {
  const msg = e && e.message ? e.message : String(e);
  throw `folio-perf: ${msg}`;
}

function readFile(read, path, what, fix) {
  try {
    return read(path);
  } catch (e) {
    throw new Error(`${what} ${path} cannot be read; fix: ${fix}`);
  }
}

/**
 * @param {object} p
 * @param {(path: string) => string} p.read reads a file relative to the repository root
 * @param {object} p.env __ENV
 * @param {object} p.workflow the workflow's descriptor (lib/workflows/*.js): name, profiles,
 *   phases, config options, settings(env, profile, cfg), thresholdInputs(run), report module,
 *   describe(run, env), and optionally scenarios(run) for scenarios beside the load steps and
 *   warmupMs(env), the time before the first step (the warm-up scenario's)
 * @param {number} [p.vu] k6's __VU: 0 in the init that k6 reads options from (and in setup,
 *   teardown, handleSummary), which gets the whole run (planRun); >= 1 in each load VU's own
 *   init, which gets only what an iteration needs (no options, no thresholds, no report)
 * @param {(path: string) => object} [p.load] loads a module of VU 0's (see planRun), a path
 *   relative to this file: k6's init-context require() by default; node's tests pass their own
 */
export function loadRun({ read, env, workflow, vu = 0, load = (path) => require(path) }) {
  try {
    const wf = workflow;
    const where = envFileOf(env);
    if (where.warning && vu === 0) console.warn(`folio-perf: ${where.warning}`);
    const text = readFile(read, where.file, 'environment file', `create ${where.file} (copy env/folio.example.json) or set ${TARGET_ENV} to one of the files in env/`);
    const lookup = defaultsLookup(env, (f) => readFile(read, f, 'defaults file', `restore ${f} from the repository`));
    const cfg = resolveConfig(parseEnvFile(text, where.file, lookup), env, where, wf.config);
    const profile = buildProfile(env.PROFILE, { vus: env.VUS, duration: env.DURATION }, { profiles: wf.profiles, phases: typeof wf.phases === 'function' ? wf.phases(env) : wf.phases, startMs: wf.warmupMs ? wf.warmupMs(env) : 0 });
    const run = { cfg, profile, workflow: wf.name, ...wf.settings(env, profile, cfg) };
    if (wf.scenarios) run.extraScenarios = wf.scenarios(run);
    return vu === 0 ? planRun(wf, run, read, env, load) : run;
  } catch (e) {
    return fatal(e);
  }
}

// What only VU 0 needs: the options k6 reads (thresholds, tags), the test id, the report code
// for handleSummary (run.report) and setup's record of the run (run.captureRecord). The
// thresholds, report and record modules are loaded here, through k6's init-context require(), and
// not imported: every statically imported module is evaluated in every VU, and k6's JavaScript VM
// keeps about 1 KB per function and object a module creates, so the first two alone would cost each
// load VU 63 KB (13 MB at 200 VUs, measured with a heap profile).
function planRun(wf, run, read, env, load) {
  const { buildThresholds, parseJsonFile, SUMMARY_TREND_STATS } = load('../thresholds.js');
  const report = load(wf.report);
  // The record of what the run tests (lib/k6/record.js): the commit is read here, in init, where
  // open() works; the rest in setup, from the target.
  const recorder = load('./record.js');
  const commit = recorder.gitCommit(read);
  const { cfg, profile, workflow } = run;

  if (env.BASELINE && !wf.baselines) throw new Error(`BASELINE is not supported by the ${workflow} workflow; fix: unset BASELINE`);
  const thFile = env.THRESHOLDS || 'thresholds.json';
  const doc = parseJsonFile(readFile(read, thFile, 'thresholds file', 'restore thresholds.json from the repository or point THRESHOLDS at a valid file'), thFile);
  const baseline = env.BASELINE ? parseJsonFile(readFile(read, env.BASELINE, 'baseline', 'give BASELINE a path relative to the repository root, e.g. BASELINE=baselines/fast.json'), env.BASELINE) : null;
  const thresholds = buildThresholds({
    doc,
    workflow,
    baseline,
    baselineFile: env.BASELINE,
    file: thFile,
    ...wf.thresholdInputs(run),
  });

  let testid = env.TESTID;
  if (testid !== undefined && testid !== '') {
    if (!validTestId(testid)) throw new Error(`TESTID "${testid}" is not a test id; fix: use letters, digits, . _ - (e.g. ${workflow}-20261122T030000Z-lotus)`);
  } else {
    testid = makeTestId(workflow, cfg.release);
  }

  // Where handleSummary writes summary.json (lib/summary.js summaryFile): RESULTS_DIR when it names
  // a directory; else results/<testid>/ when it exists (folio-perf run makes it; with a generated
  // test id no directory can exist yet); else results-<testid>-summary.json in the working directory.
  // One runner of a split run (INSTANCE) writes its summary beside the others', under runners/<i>/;
  // folio-perf run (tools/run/k6.mjs) merges them into results/<testid>/summary.json.
  let resultsDir;
  let resultsDirExists;
  if (env.RESULTS_DIR) {
    resultsDir = env.RESULTS_DIR.replace(/\/+$/, '');
    if (!isDirectory(read, resultsDir)) throw new Error(`RESULTS_DIR ${resultsDir} is not a directory; fix: mkdir -p ${resultsDir} first (k6 cannot create directories), or unset RESULTS_DIR`);
    resultsDirExists = true;
  } else {
    resultsDir = env.INSTANCE ? `results/${testid}/runners/${env.INSTANCE}` : `results/${testid}`;
    resultsDirExists = env.TESTID ? isDirectory(read, resultsDir) : false;
  }

  const options = {
    scenarios: { ...profile.scenarios, ...(run.extraScenarios || {}) },
    thresholds,
    summaryTrendStats: SUMMARY_TREND_STATS,
    // Run-wide tags on every sample; never a secret, never an id.
    tags: { testid, workflow, release: cfg.release, target: cfg.target, ...instanceTag(env.INSTANCE) },
    setupTimeout: env.SETUP_TIMEOUT || '5m',
    teardownTimeout: env.TEARDOWN_TIMEOUT || '10m',
    // No userAgent: k6's own ("Grafana k6/<version>") is how setup() learns the k6 version for
    // the run's record (stock k6 has no other way to tell a script). Per-request timeouts are set
    // in lib/k6/http.js.
    systemTags: SYSTEM_TAGS,
  };
  return {
    ...run,
    options,
    testid,
    resultsDir,
    resultsDirExists,
    report,
    // setup(): the record, taken from the target once logged in (session), with the load as configured.
    captureRecord: (session) =>
      recorder.captureRecord(cfg, session, commit, { profile: profile.name, steps: profile.steps, stepDuration: `${profile.durationMs / 1000}s`, think: env.THINK || profile.think || 'none' }),
    describe: () => wf.describe(run, env),
  };
}

// k6's default system tags but `url`: their one home is lib/metrics.js (why, there).
export { SYSTEM_TAGS };

// INSTANCE names one runner of a run split over several k6 processes (make run RUNNERS=N sets it):
// its samples carry the tag instance=<INSTANCE> beside the shared testid. Low cardinality: a
// handful of runners per run.
export function instanceTag(value) {
  if (value === undefined || value === '') return {};
  if (!/^[A-Za-z0-9_.-]{1,40}$/.test(value)) throw new Error(`INSTANCE "${value}" is not a runner name; fix: use letters, digits, . _ - (e.g. INSTANCE=2)`);
  return { instance: value };
}

// open() refuses directories with a distinct error, which tells "exists" from "missing".
function isDirectory(read, path) {
  try {
    read(path);
    return false;
  } catch (e) {
    return /directories/.test(String(e));
  }
}
