// `folio-perf run` (and `make run`): one run, start to finish.
//   1. make builds what the run needs and starts the stack (run-deps and the workflow's targets);
//   2. on the local stack minifolio is (re)started with MINIFOLIO_PROFILE, seeded when empty and
//      reset to the pre-test state, as PTF restored its database before every test; on your FOLIO
//      (FOLIO_URL, or FOLIO_ENV other than local) nothing of that: minifolio is left alone;
//   3. the operator logs in once, so a wrong password, user, tenant or URL stops the run here;
//   4. k6 runs the workflow's script (RUNNERS=N: N processes, one verdict over all), streaming
//      every sample to InfluxDB; database statistics are taken around it for the report;
//   5. what the run left behind is checked, lost samples are judged, results/<testid>/ is named.
// The exit code is the run's: 0 passed, 99 a threshold failed, 105 interrupted, 108 setup or login
// failed, 96 samples lost (SAMPLE_LOSS=fail), 1 a bad setting; `make run` turns any failure into
// make's own 2.
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism, constants as osConstants, totalmem } from 'node:os';
import { ROOT, stackDefaults } from '../cli/stack-defaults.mjs';
import { forwardSignals, runChild, signalsReceived } from './children.mjs';
import { stackAnswers } from './stack-answers.mjs';
import { runPlan } from './settings.mjs';
import { runWorkflow, workflowNames } from './workflows.mjs';
import { externalName, withTargetEnv } from './target.mjs';
import { platformArgs } from './platform.mjs';
import { logIn, targetConfig, TargetError } from './folio-session.mjs';
import { dbSnapshot } from './db-snapshot.mjs';
import { MACHINE_ENV } from '../../lib/record.js';
import { STORED_METRICS } from '../../lib/metrics.js';
import { startProgress } from './progress.mjs';
import { runOne, runRunners } from './k6.mjs';
import { judgeSampleLoss } from './sample-loss.mjs';
import { command as verdictCommand } from '../cli/verdict.mjs';
import { mergeSummaries } from '../verdict/merge-summary.mjs';

/** A step that failed: the run ends with its code (its own output said why). */
class StepFailed extends Error {
  constructor(code) {
    super(`exit ${code}`);
    this.code = code;
  }
}

// The code a shell gives a process ended by the first signal folio-perf received (130 for SIGINT).
const signalExit = () => 128 + (osConstants.signals[signalsReceived()[0]] || 2);

const say = (line) => process.stdout.write(`${line}\n`);
const warn = (line) => process.stderr.write(`${line}\n`);

/** Runs the run described by env (the settings applied); resolves its exit code. */
export async function runCommand(givenEnv, { tty = Boolean(process.stdout.isTTY) } = {}) {
  // One name for the target's env file from here on (FOLIO_ENV); a disagreeing pair stops here.
  const { env: userEnv, warning } = withTargetEnv(givenEnv);
  if (warning) warn(`folio-perf: ${warning}`);
  forwardSignals();
  // Paths in settings (THRESHOLDS, BASELINE, DATA=csv:<dir>) and results/ are the checkout's.
  process.chdir(ROOT);
  const minifolioProfiles = readdirSync(join(ROOT, 'minifolio', 'profiles')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  const plan = runPlan(userEnv, { workflows: workflowNames(), minifolioProfiles });
  const wf = await runWorkflow(plan.workflow);
  // Inside a test, drill, the demo or the gate (tools/local-env.sh set FP_LOCAL_ONLY=1) a target off
  // this machine stops here, with one line, before anything is contacted (lib/config.js decides).
  if (plan.external && userEnv.FP_LOCAL_ONLY === '1') targetConfig({ ...userEnv, FOLIO_ENV: userEnv.FOLIO_ENV || 'local', FOLIO_PASSWORD: userEnv.FOLIO_PASSWORD || '-' });
  const defaults = stackDefaults(userEnv);
  const env = { ...userEnv };
  if (!plan.external) {
    // minifolio's operator password is a local-only default; your FOLIO's comes from you. The
    // stack's database password reaches k6 (DATA=db) and minifolio through the environment.
    env.FOLIO_PASSWORD ||= defaults.FP_ADMIN_PASSWORD;
    env.MINIFOLIO_ADMIN_PASSWORD = env.FOLIO_PASSWORD;
    env.FOLIO_DB_PASSWORD = defaults.FOLIO_DB_PASSWORD;
    env.MINIFOLIO_DB = defaults.MINIFOLIO_DB;
  }
  const minifolio = join(ROOT, 'bin', 'minifolio');
  const minifolioUrl = `http://127.0.0.1:${defaults.FP_MINIFOLIO_PORT}`;
  const runDir = join(defaults.FP_STACK_DIR, 'minifolio');
  const influxUrl = `http://127.0.0.1:${defaults.FP_INFLUX_PORT}`;

  // A step of the preparation: its output on the terminal, a failure ends the run with its code;
  // a signal during it ends the run once the step has stopped.
  const step = async (cmd, args, opts = {}) => {
    const r = await runChild(cmd, args, { env, cwd: ROOT, ...opts });
    if (r.code !== 0) throw new StepFailed(r.code);
    if (signalsReceived().length > 0) throw new StepFailed(signalExit());
    return r;
  };
  const ctx = { env, plan, defaults, say, step, minifolio, minifolioUrl };

  try {
    // k6, minifolio and what the workflow's run needs (WORKFLOW reaches make in env), and the stack
    // unless its services answer already: then it may be another checkout's (perf-gate's base
    // worktree shares this one's), whose processes a stack-up from here would not recognise.
    const up = await stackAnswers(defaults);
    await step('make', ['--no-print-directory', '-C', ROOT, up ? 'run-builds' : 'run-deps']);
    mkdirSync(join(defaults.FP_STACK_DIR, 'logs'), { recursive: true });
    if (plan.external) {
      say(`==> target: ${externalName(env)} (FOLIO_URL/FOLIO_ENV set): minifolio is not started, seeded or reset; if the run does not end cleanly, it lists the open loans its operator made (teardown checks in the run's own loans)`);
    } else {
      // A profile is applied at start, so minifolio restarts for every run; that also clears what
      // a leak profile accumulated in the previous run.
      await step(minifolio, ['down', '--run-dir', runDir], { stdio: ['ignore', 'ignore', 'inherit'] });
      say(`==> minifolio: starting with profile ${plan.minifolioProfile} on 127.0.0.1:${defaults.FP_MINIFOLIO_PORT}`);
      const upArgs = wf.minifolioArgs ? await wf.minifolioArgs(ctx) : [];
      upArgs.push(...(await platformArgs(ctx)));
      await step(minifolio, ['up', '--run-dir', runDir, '--port', defaults.FP_MINIFOLIO_PORT, '--profile', plan.minifolioProfile, '--token-ttl', plan.tokenTtl, ...upArgs]);
      const s = plan.seed;
      say(`==> minifolio: seeding ${defaults.FP_TENANT} if empty (${s.args.join(' ')})`);
      await step(minifolio, ['seed', '--tenant', defaults.FP_TENANT, '--admin-user', defaults.FP_USER, ...s.args]);
      say("==> minifolio: reset to the pre-test state (PTF's restore)");
      await step(minifolio, ['reset', '--tenant', defaults.FP_TENANT]);
      if (wf.afterReset) await wf.afterReset(ctx);
    }
  } catch (e) {
    if (e instanceof StepFailed) return e.code;
    throw e;
  }

  // The target as k6 sees it: minifolio's gateway, or what the user set.
  const k6Env = {
    ...env,
    FOLIO_ENV: env.FOLIO_ENV || 'local',
    TESTID: plan.testid,
    RELEASE: plan.release,
    PROFILE: plan.profile,
    K6_WEB_DASHBOARD: 'true',
    K6_WEB_DASHBOARD_PORT: '-1',
    K6_NO_USAGE_REPORT: 'true',
    // Only what the dashboards, report and verdict read reaches InfluxDB (lib/metrics.js); a user's
    // K6_INFLUXDB_METRICS ('*', or a longer list) writes k6's other metrics too.
    K6_INFLUXDB_METRICS: env.K6_INFLUXDB_METRICS || STORED_METRICS.join(','),
    // The machine k6 runs on, for the run's record (lib/record.js): k6 cannot read /proc.
    [MACHINE_ENV.cores]: String(availableParallelism()),
    [MACHINE_ENV.memoryBytes]: String(totalmem()),
    ...(plan.external ? {} : { FOLIO_URL: minifolioUrl, FOLIO_DB_PORT: defaults.FP_PG_PORT }),
  };
  let cfg;
  try {
    cfg = targetConfig(k6Env);
    await logIn(cfg);
  } catch (e) {
    if (!(e instanceof TargetError)) throw e;
    warn(`folio-perf: ${e.message}`);
    return e.code;
  }
  if (signalsReceived().length > 0) return signalExit();

  const out = join('results', plan.testid);
  const outAbs = join(ROOT, out);
  mkdirSync(outAbs, { recursive: true });
  const minifolioLogs = join(runDir, 'logs');
  if (!plan.external) await dbSnapshot('start', { out: outAbs, defaults, minifolioLogs, say });
  const target = plan.external ? externalName(env) : `minifolio (${plan.minifolioProfile})`;
  say(`==> k6: ${wf.script} PROFILE=${plan.profile} against ${target}, testid ${plan.testid}`);
  // The workflow's dashboard, when it names one, in Grafana under docker compose (docs/docker.md).
  const grafana = wf.dashboard ? `http://localhost:${defaults.FP_GRAFANA_PORT}/d/${wf.dashboard}?var-testid=${plan.testid}` : null;
  const grafanaLine = (link) => `    Grafana (Docker): docker compose --profile native-grafana up -d grafana-native, then open ${link}`;
  say(`==> live: InfluxDB ${influxUrl} database k6, testid ${plan.testid}`);
  if (grafana) say(grafanaLine(`${grafana}&from=now-1h&to=now&refresh=30s`));

  // Progress: k6's bar on a terminal; otherwise one line per PROGRESS_EVERY seconds.
  const stopProgress = tty ? () => {} : startProgress({ influxUrl, testid: plan.testid, everyS: plan.progressEvery });
  const startedAt = new Date().toISOString();
  rmSync(join(outAbs, 'sample-loss.json'), { force: true });
  const k6 = join(ROOT, 'bin', 'k6');
  const k6Args = ['--address=', '-o', `influxdb-lp=${influxUrl}/k6`];
  let rc;
  try {
    if (plan.runners === 1) {
      rc = await runOne({
        k6,
        script: wf.script,
        env: { ...k6Env, K6_INFLUXDB_LOSS_FILE: join(out, 'sample-loss.json'), K6_WEB_DASHBOARD_EXPORT: join(out, 'k6-report.html') },
        args: [...(tty ? [] : ['--quiet']), ...k6Args],
      });
    } else {
      rc = await runRunners({ k6, script: wf.script, env: k6Env, args: k6Args, n: plan.runners, out, say });
      rc = await judgeRunners({ rc, plan, out, influxUrl, env });
    }
  } finally {
    stopProgress();
  }
  if (!plan.external) await dbSnapshot('end', { out: outAbs, defaults, minifolioLogs, say });

  // What the run left behind.
  if (!plan.external && wf.checkLocal) await wf.checkLocal({ ...ctx, rc });
  if (plan.external && wf.checkRemote) await wf.checkRemote({ ...ctx, env: k6Env, rc, startedAt });
  rc = judgeSampleLoss({ out, rc, sampleLoss: plan.sampleLoss, say, warn });

  // Only what exists: a run that stopped in setup wrote no HTML report.
  const results = ['summary.json', 'k6-report.html'].map((f) => join(out, f)).filter((f) => existsSync(f));
  if (results.length > 0) say(`==> results: ${results.join(' ')}`);
  else {
    try {
      rmdirSync(outAbs);
    } catch {
      // not empty: keep what is there
    }
  }
  say(`==> samples: InfluxDB ${influxUrl} database k6, testid ${plan.testid}`);
  if (grafana) say(grafanaLine(grafana));
  // The release report of this run (tables, module CPU/memory, charts) is one command away.
  if (existsSync(join(out, 'summary.json'))) {
    say(`==> report: folio-perf report ${plan.testid} [--against <previous release's testid or baseline>]`);
    say(`    (or: make report TESTID=${plan.testid}) writes ${out}/report.md and ${out}/report.html`);
  }
  if (rc === 99) {
    say(plan.runners === 1 ? '==> thresholds failed: k6 exit code 99 (see the ✗ lines above)' : `==> thresholds failed over all ${plan.runners} runners' samples: exit code 99 (see the verdict above)`);
  } else if (rc === 96) say('==> samples lost: exit code 96 (SAMPLE_LOSS=fail)');
  else if (rc !== 0) say(`==> k6 exited with ${rc}`);
  return rc;
}

// RUNNERS=N: the runners' summaries merged into results/<testid>/summary.json, then the verdict over
// all their samples in InfluxDB decides (a runner that did not finish its plan decides alone).
async function judgeRunners({ rc, plan, out, influxUrl, env }) {
  try {
    const m = await mergeSummaries(plan.testid, { influxUrl, runners: plan.runners });
    say(`==> summary: ${m.runners} runners' summaries merged into ${m.path} (percentiles over all their samples in InfluxDB)`);
  } catch (e) {
    if (e.name !== 'ReportError') throw e;
    say(`==> summary: the runners' summaries could not be merged (${e.message}); each runner's is in ${out}/runners/<i>/summary.json`);
  }
  if (rc !== 0) {
    say(`==> no verdict: a runner did not finish its run (exit ${rc})`);
    return rc;
  }
  say(`==> verdict over all ${plan.runners} runners' samples in InfluxDB (testid ${plan.testid}):`);
  const values = { influx: influxUrl, thresholds: env.THRESHOLDS || 'thresholds.json', baseline: env.BASELINE ? [env.BASELINE] : [] };
  try {
    return await verdictCommand.run({ values, positionals: [plan.testid], env });
  } catch (e) {
    warn(`folio-perf: ${e.message}`);
    return 1;
  }
}
