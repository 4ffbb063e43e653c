// The settings of one run (`folio-perf run NAME=VALUE ...`, `make run NAME=VALUE ...`, or the same
// names in the environment), checked before anything starts: a bad one stops the run with one
// line, the cause and the fix. Pure.
import { UsageError } from '../cli/args.mjs';
import { isExternal } from './target.mjs';
import { makeTestId, validTestId } from '../../lib/testid.js';
import { targetEnvName } from '../../lib/config.js';

// What `folio-perf run --help` and docs/cli.md list. Workflow settings (THINK, DISTRIBUTION,
// DATA, CHECKIN_POOL, REINDEX_*, ...) reach k6 unchanged; the workflows check them there.
export const RUN_SETTINGS = [
  ['WORKFLOW', 'cico', 'the workflow: one of lib/workflows/ (cico, search; tools/workflows.mjs list)'],
  ['PROFILE', 'smoke', "the load profile (smoke, demo, ptf, ...: the workflow's profiles)"],
  ['DURATION, VUS', "the profile's", 'override the length of each step and the user count'],
  ['MINIFOLIO_PROFILE', 'fast', "minifolio's release profile (minifolio/profiles/*.json); local stack only"],
  ['RELEASE', 'the minifolio profile', 'label of the system under test (on your FOLIO: the env file\'s release)'],
  ['TESTID', '<workflow>-<UTC time>-<release>', 'the run\'s id: letters, digits, . _ -'],
  ['FOLIO_URL, FOLIO_ENV', 'local minifolio', 'your FOLIO: then minifolio is not started, seeded or reset (K6_ENV: FOLIO_ENV\'s old name)'],
  ['THRESHOLDS, BASELINE', 'thresholds.json', 'the SLO file; a baseline file for the in-run regression rule'],
  ['RUNNERS', '1', 'k6 processes on execution segments of the plan (1 to 16), one verdict over all'],
  ['SAMPLE_LOSS', 'fail', 'fail: a run whose samples did not all reach InfluxDB exits 96; warn: only said'],
  ['PROGRESS_EVERY', '60', 'seconds between progress lines when the output is not a terminal'],
  ['SEED_SCALE', 'demo', "the size of minifolio's data when its tenant is empty: demo, 1m or ptf (docs/scale.md)"],
  ['SEED_ITEMS, SEED_USERS, SEED_LOANS', "the scale's", 'these sizes instead of the scale\'s (demo: 20000, 2000, 500)'],
  ['SEED_EVENTS_PER_USER, SEED_AUTHORITIES', "the scale's", 'patron-block history per user; MARC authorities (demo: 0, 2000)'],
  ['TOKEN_TTL', '10m', "minifolio's access-token lifetime"],
];

const NAME_VALUE = /^([A-Z][A-Z0-9_]*)=(.*)$/s;
// Secrets come only from the environment: on a command line every user of the machine sees them.
const SECRET = /(PASSWORD|SECRET|PASSWD)$/;

/** NAME=VALUE arguments -> { NAME: VALUE }. */
export function settingsFromArgs(args) {
  const out = {};
  for (const a of args) {
    const m = NAME_VALUE.exec(a);
    if (!m) throw new UsageError(`run: "${a}" is not a NAME=VALUE setting; fix: e.g. folio-perf run PROFILE=smoke MINIFOLIO_PROFILE=lotus (folio-perf run --help)`);
    if (SECRET.test(m[1])) {
      throw new UsageError(`run: ${m[1]} is refused on the command line, where every user of this machine can read it (ps, shell history); fix: export it in the environment instead (read -rs ${m[1]} && export ${m[1]}), then run without it`);
    }
    out[m[1]] = m[2];
  }
  return out;
}

// minifolio seed's --scale presets (minifolio/internal/seed/scale.go), and the SEED_* sizes that
// win over a preset's, with their flags.
export const SEED_SCALES = ['demo', '1m', 'ptf'];
const SEED_SIZES = [
  ['SEED_ITEMS', '--items', '20000'],
  ['SEED_USERS', '--users', '2000'],
  ['SEED_LOANS', '--loans', '500'],
  ['SEED_EVENTS_PER_USER', '--events-per-user', '0'],
  ['SEED_AUTHORITIES', '--authorities', '2000'],
];

/** The seed's scale and the sizes given, as `minifolio seed` flags. */
function seedPlan(env) {
  const scale = env.SEED_SCALE || 'demo';
  if (!SEED_SCALES.includes(scale)) {
    throw new UsageError(`SEED_SCALE '${scale}' is not one of minifolio's scales; fix: use ${SEED_SCALES.map((s) => `SEED_SCALE=${s}`).join(', ')} (docs/scale.md)`);
  }
  const args = ['--scale', scale];
  for (const [name, flag, example] of SEED_SIZES) {
    if (env[name] !== undefined && env[name] !== '') args.push(flag, String(count(env, name, example)));
  }
  return { scale, args };
}

function count(env, name, dflt) {
  const v = env[name] === undefined || env[name] === '' ? dflt : env[name];
  if (!/^\d{1,9}$/.test(v)) throw new UsageError(`${name} '${v}' is not a count; fix: use a whole number, e.g. ${name}=${dflt}`);
  return Number(v);
}

/**
 * The run's plan from its environment (settings applied). workflows: the registry's names;
 * minifolioProfiles: the names of minifolio/profiles/*.json. Throws UsageError.
 */
export function runPlan(env, { workflows, minifolioProfiles, now = new Date() }) {
  const external = isExternal(env);
  const workflow = env.WORKFLOW || 'cico';
  if (!workflows.includes(workflow)) throw new UsageError(`unknown WORKFLOW '${workflow}'; fix: use one of ${workflows.map((w) => `WORKFLOW=${w}`).join(', ')}`);
  const runnersText = env.RUNNERS === undefined || env.RUNNERS === '' ? '1' : env.RUNNERS;
  const runners = Number(runnersText);
  if (!/^[1-9]\d?$/.test(runnersText) || runners > 16) throw new UsageError(`RUNNERS '${runnersText}' is not a number of k6 processes from 1 to 16; fix: use e.g. RUNNERS=2`);
  if (runners > 1 && env.INSTANCE) throw new UsageError('INSTANCE is set by RUNNERS=N for each runner; fix: unset INSTANCE');
  const sampleLoss = env.SAMPLE_LOSS || 'fail';
  if (!['fail', 'warn'].includes(sampleLoss)) throw new UsageError(`SAMPLE_LOSS '${sampleLoss}' is neither fail nor warn; fix: use SAMPLE_LOSS=fail (default) or warn`);
  const minifolioProfile = env.MINIFOLIO_PROFILE || 'fast';
  if (!minifolioProfiles.includes(minifolioProfile)) throw new UsageError(`unknown MINIFOLIO_PROFILE '${minifolioProfile}'; fix: use one of: ${minifolioProfiles.join(' ')}`);
  const everyText = env.PROGRESS_EVERY || '60';
  if (!/^[1-9]\d{0,5}$/.test(everyText)) throw new UsageError(`PROGRESS_EVERY '${everyText}' is not a number of seconds; fix: use e.g. PROGRESS_EVERY=60`);
  const release = env.RELEASE || (external ? '' : minifolioProfile);
  const testid = env.TESTID || makeTestId(workflow, release || targetEnvName(env).name || 'folio', now);
  if (!validTestId(testid)) throw new UsageError(`TESTID '${testid}' is not a test id; fix: use letters, digits, . _ - (e.g. cico-20261122T030000Z-lotus)`);
  const tokenTtl = env.TOKEN_TTL || '10m';
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(tokenTtl)) throw new UsageError(`TOKEN_TTL '${tokenTtl}' is not a duration; fix: use e.g. TOKEN_TTL=10m`);
  return {
    external,
    workflow,
    profile: env.PROFILE || 'smoke',
    minifolioProfile,
    release,
    testid,
    runners,
    sampleLoss,
    progressEvery: Number(everyText),
    tokenTtl,
    seed: seedPlan(env),
  };
}
