#!/usr/bin/env node
// folio-perf: the command-line side of a run (outside k6).
//
//   folio-perf baseline <testid> [<testid> ...] [--out baselines/<name>.json] [--influx <url>]
//       a baseline from finished runs of one system (2 or more: the verdict needs their spread),
//       each run's distribution read from InfluxDB; for `verdict --baseline` and BASELINE=….
//   folio-perf report <testid> [--against <testid|baseline>] [--influx <url>] [--module-logs <dir>]
//       writes results/<testid>/report.md and report.html (summary.json + InfluxDB; --against: the
//       previous release's run or baseline file beside this run in the same tables; --module-logs:
//       a real FOLIO's module log files, for the without-index line counts).
//   folio-perf compare <testid A> <testid B> [--influx <url>]
//       writes results/compare-<A>-vs-<B>/report.md and report.html.
//
//   folio-perf verdict <testid> [--influx <url>] [--thresholds <file>] [--baseline <file>]... [--alpha <a>] [--control speed|<metric>] [--min-delta-ms <ms>] [--instance <i>]
//       the run's verdict from all its samples in InfluxDB (every runner) and the baseline: a table,
//       exit 99 when a threshold fails or the baseline comparison says regressed (tools/verdict/);
//       alpha: the baseline comparison's false-alarm rate (default 0.05); control: judge every metric
//       relative to the run's speed (`speed`: the median change of the other metrics, plus a row for
//       the speed itself), or every other metric relative to one metric's quantile in the same run (a
//       metric the change cannot touch, e.g. 'transaction_duration{transaction:check-in}'); either
//       cancels a noisy machine's speed from run to run; --instance <i>:
//       one runner's samples only (make run RUNNERS=N tags them instance=<i>); --min-delta-ms: a
//       change smaller than this (default 2) is never a regression. With
//       GITHUB_STEP_SUMMARY set, the table is appended there in Markdown.
//
//   folio-perf run [NAME=VALUE ...]        e.g. folio-perf run PROFILE=smoke MINIFOLIO_PROFILE=lotus
//       one run (tools/run.sh after make's build and stack-up steps); exits with k6's code
//       (99 thresholds, 105 interrupted, 108 setup/login, 96 samples lost), where make run exits 2.
//   folio-perf reset [--tenant <t>]
//       minifolio's tenant back to the pre-test state (tools/reset.sh; make reset).
//
// The logic lives in tools/report/. Errors: one line, the fix, exit 1.
import { readFileSync, writeFileSync, mkdirSync, existsSync, renameSync, appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { validateBaseline } from '../lib/baseline.js';
import { ReportError } from './report/errors.mjs';
import { setting } from './defaults.mjs';

const USAGE = 'usage: folio-perf run [NAME=VALUE ...] | reset [--tenant <t>] | baseline <testid> [<testid> ...] [--out baselines/<name>.json] [--influx <url>] | report <testid> [--against <testid|baseline>] [--influx <url>] [--module-logs <dir>] | compare <testid A> <testid B> [--influx <url>] | verdict <testid> [--influx <url>] [--thresholds <file>] [--baseline <file>]... [--alpha <a>] [--control speed|<metric>] [--min-delta-ms <ms>] [--instance <i>]';

function fail(msg) {
  process.stderr.write(`folio-perf: ${msg}\n`);
  process.exit(1);
}

function readSummary(arg) {
  const path = existsSync(arg) ? arg : join('results', arg, 'summary.json');
  if (!existsSync(path)) fail(`no summary at ${path}; fix: give a results/<testid>/summary.json written by a finished run`);
  let doc;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    fail(`${path} is not JSON (${e.message}); fix: give the summary.json a run wrote`);
  }
  if (doc?.format !== 'folio-perf-summary/1' || !doc.k6 || !doc.meta) fail(`${path} is not a folio-perf run summary; fix: give results/<testid>/summary.json`);
  return { path, doc };
}

// A baseline from one or more finished runs (format 2: tools/verdict/baseline-format.mjs). A run is
// a test id or its results/<testid>/summary.json; its samples come from InfluxDB.
export async function baseline(args) {
  const { flags: f, rest } = flags(args, ['out', 'influx']);
  if (rest.length === 0) fail(`baseline takes the test ids of finished runs; fix: folio-perf baseline <testid> <testid> [--out baselines/<name>.json] (2 or more runs of the same system)`);
  const runs = rest.map((a) => ({ meta: readSummary(a).doc.meta }));
  const { buildBaseline, readRunSamples } = await import('./verdict/baseline-format.mjs');
  const { influxClient } = await import('./report/influx.mjs');
  await userErrors(async () => {
    let th = {};
    try {
      th = JSON.parse(readFileSync(join(ROOT, 'thresholds.json'), 'utf8'));
    } catch {
      // no slow APIs judged without thresholds.json; transactions still are
    }
    const client = influxClient(f.influx || process.env.FP_INFLUX_URL);
    for (const r of runs) r.samples = await readRunSamples(client, r.meta.testid);
    const slowApis = Object.keys(th?.workflows?.[runs[0].meta.workflow]?.apis || {});
    const b = buildBaseline(runs, { slowApis, created: runs[runs.length - 1].meta.finishedAt || new Date().toISOString() });
    try {
      validateBaseline(b, b.workflow, 'baseline');
    } catch (e) {
      throw new ReportError(e.message);
    }
    const target = f.out || join('baselines', `${b.release}.json`);
    mkdirSync(dirname(target), { recursive: true });
    // Write then rename: a failed write never leaves half a baseline behind.
    writeFileSync(`${target}.tmp`, `${JSON.stringify(b, null, 1)}\n`);
    renameSync(`${target}.tmp`, target);
    const spread = b.spread.pct === null ? 'no between-run spread (one run)' : `between-run spread of p95 ${b.spread.pct.toFixed(1)} % (${b.spread.df} degrees of freedom)`;
    console.log(`baseline ${target}: ${b.workflow} runs ${b.runs.map((r) => r.testid).join(', ')} (release ${b.release}, profile ${b.profile}), ${Object.keys(b.transactions).length} transactions, ${Object.keys(b.metrics).length} metrics judged; ${spread}`);
    if (b.runs.length < 2) console.log('note: the verdict needs 2 or more runs in a baseline and says inconclusive with this one; fix: folio-perf baseline <testid> <testid> ...');
    for (const [k, m] of Object.entries(b.metrics)) {
      const thin = m.runs.filter((r) => r.n < 100);
      if (thin.length) console.log(`note: ${k} has under 100 samples in ${thin.map((r) => r.testid).join(', ')}: too few for its p95; fix: longer runs`);
    }
  });
}

// --name value flags out of args: { flags, rest }.
function flags(args, names) {
  const out = {};
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const n = args[i].startsWith('--') ? args[i].slice(2) : null;
    if (n !== null) {
      if (!names.includes(n) || i + 1 >= args.length) fail(`bad option ${args[i]}; fix: ${USAGE}`);
      out[n] = args[++i];
    } else rest.push(args[i]);
  }
  return { flags: out, rest };
}

async function userErrors(fn) {
  try {
    await fn();
  } catch (e) {
    if (e instanceof ReportError) fail(e.message);
    throw e;
  }
}

async function report(args) {
  const { flags: f, rest } = flags(args, ['influx', 'folio-url', 'tenant', 'module-logs', 'against']);
  if (rest.length !== 1) fail(`report takes one test id; fix: folio-perf report <testid> [--against <testid|baseline>] (make report TESTID=...)`);
  // What was tested is recorded at the run's start (summary.json meta.record): the target is not asked.
  for (const o of ['folio-url', 'tenant']) if (f[o] !== undefined) fail(`--${o} is not read any more: the module versions are those the target announced at the run's start (summary.json meta.record); fix: drop --${o}`);
  const { writeReport } = await import('./report/report.mjs');
  await userErrors(async () => {
    const r = await writeReport(rest[0], { influxUrl: f.influx || process.env.FP_INFLUX_URL, moduleLogs: f['module-logs'], against: f.against });
    console.log(`report: ${r.md}, ${r.html}`);
  });
}

async function compare(args) {
  const { flags: f, rest } = flags(args, ['influx']);
  if (rest.length !== 2) fail('compare takes two test ids; fix: folio-perf compare <testid A> <testid B> (A the reference, e.g. the previous release)');
  const { writeComparison } = await import('./report/compare.mjs');
  await userErrors(async () => {
    const r = await writeComparison(rest[0], rest[1], { influxUrl: f.influx || process.env.FP_INFLUX_URL });
    console.log(`comparison: ${r.md}, ${r.html}`);
  });
}

// --baseline may repeat (several baseline files), so verdict reads its flags itself.
async function verdict(args) {
  const opts = { baselineFiles: [] };
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (['--influx', '--thresholds', '--baseline', '--alpha', '--control', '--instance', '--min-delta-ms'].includes(a) && i + 1 < args.length) {
      const v = args[++i];
      if (a === '--influx') opts.influxUrl = v;
      else if (a === '--control') opts.control = v;
      else if (a === '--instance') opts.instance = v;
      else if (a === '--thresholds') opts.thresholdsFile = v;
      else if (a === '--min-delta-ms') {
        opts.minDeltaMs = Number(v);
        if (!(opts.minDeltaMs >= 0)) fail(`--min-delta-ms ${v} is not a number of milliseconds; fix: e.g. --min-delta-ms 2 (0: judge every change)`);
      } else if (a === '--alpha') {
        opts.alpha = Number(v);
        if (!(opts.alpha > 0 && opts.alpha < 0.5)) fail(`--alpha ${v} is not a false-alarm rate; fix: a number in (0, 0.5), e.g. --alpha 0.05`);
      }
      else opts.baselineFiles.push(v);
    } else if (a.startsWith('--')) fail(`bad option ${a}; fix: ${USAGE}`);
    else rest.push(a);
  }
  if (rest.length !== 1) fail('verdict takes one test id; fix: folio-perf verdict <testid> [--baseline baselines/<name>.json]');
  opts.influxUrl ||= process.env.FP_INFLUX_URL;
  opts.thresholdsFile ||= join(ROOT, 'thresholds.json');
  const { verdictRows, exitCodeFor } = await import('./verdict/index.mjs');
  const { renderVerdict } = await import('./verdict/render.mjs');
  let rows;
  await userErrors(async () => {
    rows = await verdictRows(rest[0], opts);
  });
  process.stdout.write(renderVerdict(rows));
  // In GitHub Actions the same table goes to the job's summary page.
  if (process.env.GITHUB_STEP_SUMMARY && rows.length > 0) {
    const { renderVerdictMarkdown } = await import('./verdict/render.mjs');
    appendFileSync(process.env.GITHUB_STEP_SUMMARY, `### folio-perf verdict: ${rest[0]}\n\n${renderVerdictMarkdown(rows)}\n`);
  }
  process.exit(exitCodeFor(rows));
}

// run and reset: the run side, in the shell scripts that make wraps; these only
// hand over the settings and pass the scripts' exit code on unchanged.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGKILL: 9 };

function exitLike(r) {
  if (r.error) fail(`${r.error.message}; fix: run from a checkout of folio-perf`);
  process.exit(r.status ?? 128 + (SIGNALS[r.signal] || 1));
}

function runCmd(args) {
  const settings = {};
  for (const a of args) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(a);
    if (!m) fail(`"${a}" is not a NAME=VALUE setting; fix: folio-perf run PROFILE=smoke (the settings of make run, see docs/settings.md)`);
    settings[m[1]] = m[2];
  }
  const env = { ...process.env, ...settings };
  // Ctrl-C goes to the whole process group: run.sh and k6 handle it (teardown,
  // then k6's 105); this process stays to pass their code on.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {});
  const deps = spawnSync('make', ['--no-print-directory', '-C', ROOT, 'run-deps'], { stdio: 'inherit', env });
  if (deps.status !== 0) exitLike(deps);
  exitLike(spawnSync(join(ROOT, 'tools', 'run.sh'), [], { stdio: 'inherit', env }));
}

function resetCmd(args) {
  exitLike(spawnSync(join(ROOT, 'tools', 'reset.sh'), args, { stdio: 'inherit' }));
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'run') runCmd(args);
else if (cmd === 'reset') resetCmd(args);
else if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
  const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1);
  const head = lines.slice(0, lines.findIndex((l) => !l.startsWith('//')));
  console.log(head.map((l) => l.replace(/^\/\/ ?/, '')).join('\n').trim());
} else if (cmd === 'baseline') await baseline(args);
else if (cmd === 'report') await report(args);
else if (cmd === 'compare') await compare(args);
else if (cmd === 'verdict') await verdict(args);
else fail(cmd ? `unknown command "${cmd}"; fix: ${USAGE}` : USAGE);
