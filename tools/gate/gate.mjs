#!/usr/bin/env node
// The gate on your FOLIO, one job of .github/workflows/folio-gate.yml (docs/gate.md); each step of
// that workflow is one command here, so the workflow stays a list of steps and this file, run by
// its test exactly as the workflow runs it, holds what they do:
//
//   node tools/gate/gate.mjs prepare   checks the inputs (one line and exit 1 on a bad one, before
//                                      anything is built or contacted), builds k6 and starts the
//                                      native stack, whose InfluxDB takes the samples, unless it
//                                      answers already; step outputs `results` and `artifact`
//   node tools/gate/gate.mjs run       GATE_MODE=baseline: GATE_RUNS runs of your FOLIO, each with
//                                      its report, and the baseline file of them; candidate: one run,
//                                      its report and `folio-perf verdict` against the baseline,
//                                      whose exit code (99: regressed or an SLO failed) is the step's
//   node tools/gate/gate.mjs cleanup   stops the stack if prepare started it
//
// Settings: tools/gate/plan.mjs. Your FOLIO is reached because the inputs name it: nothing here
// runs under tools/local-env.sh. Passwords (FOLIO_PASSWORD, FOLIO_DB_PASSWORD) reach the runs
// through the environment only, and only the run step has them: prepare starts the stack without
// them, so the stack's own database never takes your FOLIO's password as its own.
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, stackDefaults } from '../cli/stack-defaults.mjs';
import { forwardSignals, runChild, signalsReceived } from '../run/children.mjs';
import { portAnswers, stackAnswers } from '../run/stack-answers.mjs';
import { DEFAULT_WORKFLOW, descriptor } from '../workflows.mjs';
import { readBaseline } from '../verdict/baseline.mjs';
import { OLD_TARGET_ENV, TARGET_ENV } from '../../lib/config.js';
import { GateError, gatePlan, parseSettings, runArgs, verdictArgs } from './plan.mjs';
import { baselineSummary, candidateFooter, candidateHeader } from './summary.mjs';

const say = (line) => process.stdout.write(`==> gate: ${line}\n`);
// A failed step's one line, also as a GitHub annotation on the run's page.
const annotate = (line) => process.stdout.write(`${process.env.GITHUB_ACTIONS ? '::error::' : ''}folio-perf gate: ${line}\n`);
// The marker of a stack that prepare started (so cleanup stops that one and never another's).
const MARKER = 'gate-started-stack';

// What make sets for every run (Makefile): the project's k6 needs no extension downloaded, and
// reports no usage out of the machine.
const childEnv = (extra = {}) => {
  const env = { ...process.env, K6_AUTO_EXTENSION_RESOLUTION: 'false', K6_NO_USAGE_REPORT: 'true', ...extra };
  // The inputs name the target; an env file of the runner's shell must not add to it.
  delete env[TARGET_ENV];
  delete env[OLD_TARGET_ENV];
  return env;
};
const folioPerf = (args, { env, ...opts } = {}) => runChild(process.execPath, [join(ROOT, 'tools', 'folio-perf.mjs'), ...args], { ...opts, env: childEnv(env), cwd: ROOT });

async function plan({ baseline = null } = {}) {
  const settings = Object.fromEntries(parseSettings(process.env.GATE_SETTINGS));
  const { profiles } = await descriptor(settings.WORKFLOW || DEFAULT_WORKFLOW);
  return gatePlan(process.env, { profiles, baseline });
}

function output(name, value) {
  if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

function summary(markdown) {
  if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, markdown);
}

async function prepare() {
  const p = await plan();
  const out = resolve(ROOT, p.out);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  output('results', out);
  output('artifact', p.artifact);
  say(`${p.mode}: ${p.mode === 'baseline' ? `${p.runs} runs` : '1 run'} of PROFILE=${p.profile} against ${p.target.url} (tenant ${p.target.tenant}, release ${p.release}); files in ${p.out}`);

  // The stack is started without your FOLIO's passwords (see the header).
  const env = childEnv();
  delete env.FOLIO_PASSWORD;
  delete env.FOLIO_DB_PASSWORD;
  const defaults = stackDefaults(env);
  const marker = join(defaults.FP_STACK_DIR, MARKER);
  const ports = [defaults.FP_PG_PORT, defaults.FP_INFLUX_PORT, defaults.FP_TELEGRAF_PORT];
  if (await stackAnswers(defaults)) {
    say(`the native stack answers already (InfluxDB on 127.0.0.1:${defaults.FP_INFLUX_PORT}): using it, and leaving it running`);
    // Not this job's: a marker left by a job that was killed before its cleanup no longer holds.
    rmSync(marker, { force: true });
    return (await runChild('make', ['--no-print-directory', '-C', ROOT, 'run-builds'], { env })).code;
  }
  // None of its services answering: this job starts the stack and cleanup stops it again.
  const noneUp = !(await Promise.all(ports.map((port) => portAnswers(port)))).some(Boolean);
  say(`starting the native stack (InfluxDB on 127.0.0.1:${defaults.FP_INFLUX_PORT} takes the samples) and building k6`);
  // Of the packages, only what the stack and a run need (tools/deps.sh FP_DEPS=run).
  const r = await runChild('make', ['--no-print-directory', '-C', ROOT, 'stack-up', 'run-builds'], { env: { ...env, FP_DEPS: 'run' } });
  if (noneUp && existsSync(defaults.FP_STACK_DIR)) writeFileSync(marker, `${new Date().toISOString()}\n`);
  return r.code;
}

async function cleanup() {
  const env = childEnv();
  const { FP_STACK_DIR } = stackDefaults(env);
  const marker = join(FP_STACK_DIR, MARKER);
  if (!existsSync(marker)) {
    say('the native stack was not started by this job: left as it is');
    return 0;
  }
  say('stopping the native stack this job started');
  const r = await runChild(join(ROOT, 'stack', 'stack.sh'), ['down'], { env });
  if (r.code === 0) rmSync(marker, { force: true });
  return r.code;
}

// One run of your FOLIO, then its report; its directory is copied into the job's files. Resolves
// the run's exit code.
async function runAndReport(p, testid, what) {
  const args = runArgs(p, testid);
  say(`${what}: folio-perf ${args.join(' ')}`);
  const r = await folioPerf(args, { guard: true });
  const dir = join(ROOT, 'results', testid);
  if (existsSync(join(dir, 'summary.json'))) {
    const rep = await folioPerf(['report', testid]);
    if (rep.code !== 0) annotate(`the report of ${testid} failed (exit ${rep.code}); the run's summary.json and k6-report.html are kept`);
  }
  if (existsSync(dir)) cpSync(dir, join(ROOT, p.out, 'runs', testid), { recursive: true });
  return r.code;
}

// k6's 99 (an SLO of thresholds.json failed) still leaves a run to keep and judge; anything else
// (108: the login or setup failed, 105: interrupted, ...) ends the job with the run's code.
const finished = (code) => code === 0 || code === 99;

async function recordBaseline(p) {
  const done = [];
  for (const [i, testid] of p.testids.entries()) {
    const code = await runAndReport(p, testid, `baseline run ${i + 1} of ${p.runs}`);
    if (signalsReceived().length > 0) return code;
    if (!finished(code)) {
      annotate(`baseline run ${i + 1} (${testid}) failed with exit ${code}; fix: read its output above (108: login or test data, 105: interrupted)`);
      return code;
    }
    if (code === 99) say(`${testid}: an SLO of thresholds.json failed; the run is kept in the baseline (it is what this release does)`);
    done.push(testid);
  }
  const file = join(p.out, 'baseline.json');
  const b = await folioPerf(['baseline', ...done, '--out', file]);
  if (b.code !== 0) return b.code;
  summary(baselineSummary(JSON.parse(readFileSync(join(ROOT, file), 'utf8')), { plan: p, runId: process.env.GITHUB_RUN_ID, artifact: p.artifact, file }));
  say(`baseline: ${file} (uploaded as the artifact ${p.artifact})`);
  return 0;
}

async function judgeCandidate() {
  // The baseline first: its profile and duration are the candidate's, and a wrong file should stop
  // the job before a run of your FOLIO, not after it.
  const first = await plan();
  const baseline = readBaseline(resolve(ROOT, first.baselineFile));
  const p = await plan({ baseline });
  const testid = p.testids[0];
  const code = await runAndReport(p, testid, 'candidate run');
  if (!finished(code)) {
    if (signalsReceived().length === 0) annotate(`the candidate run (${testid}) failed with exit ${code}; fix: read its output above (108: login or test data, 105: interrupted)`);
    return code;
  }
  summary(candidateHeader(baseline, { plan: p, testid }));
  // The verdict's table goes to the job summary (the verdict writes it there itself) and, with its
  // terminal table, into the job's files.
  const md = join(ROOT, p.out, 'verdict.md');
  writeFileSync(md, '');
  const v = await folioPerf(verdictArgs(p, testid), { capture: true, env: { GITHUB_STEP_SUMMARY: md } });
  process.stdout.write(v.stdout);
  process.stderr.write(v.stderr);
  writeFileSync(join(ROOT, p.out, 'verdict.txt'), v.stdout);
  summary(readFileSync(md, 'utf8'));
  summary(candidateFooter({ code: v.code, artifact: p.artifact, testid }));
  return v.code === 0 && code === 99 ? 99 : v.code;
}

const STEPS = {
  prepare,
  cleanup,
  async run() {
    const p = await plan();
    mkdirSync(join(ROOT, p.out), { recursive: true });
    return p.mode === 'baseline' ? recordBaseline(p) : judgeCandidate();
  },
};

const step = process.argv[2];
if (!STEPS[step]) {
  process.stderr.write(`usage: node tools/gate/gate.mjs ${Object.keys(STEPS).join('|')} (the steps of .github/workflows/folio-gate.yml)\n`);
  process.exit(2);
}
forwardSignals();
process.chdir(ROOT);
try {
  process.exit(await STEPS[step]());
} catch (e) {
  if (!['GateError', 'ReportError', 'UsageError'].includes(e?.name)) throw e;
  annotate(e.message);
  process.exit(1);
}
