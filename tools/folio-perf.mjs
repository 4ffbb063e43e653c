#!/usr/bin/env node
// folio-perf: the command-line side of a run (outside k6).
//
//   folio-perf baseline <results/<testid>/summary.json | testid> [--out baselines/<name>.json]
//       turns a finished run into a baseline file for BASELINE=… (the regression gate).
//   folio-perf report <testid> [--influx <url>] [--folio-url <url>] [--tenant <t>] [--module-logs <dir>]
//       writes results/<testid>/report.md and report.html (summary.json + InfluxDB; --module-logs:
//       a real FOLIO's module log files, for the without-index line counts).
//   folio-perf compare <testid A> <testid B> [--influx <url>]
//       writes results/compare-<A>-vs-<B>/report.md and report.html.
//
// The logic lives in tools/report/. Errors: one line, the fix, exit 1.
import { readFileSync, writeFileSync, mkdirSync, existsSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fromSummary, validateBaseline } from '../lib/baseline.js';
import { ReportError } from './report/errors.mjs';

const USAGE = 'usage: folio-perf baseline <results/<testid>/summary.json | testid> [--out baselines/<name>.json] | report <testid> [--influx <url>] [--folio-url <url>] [--tenant <t>] [--module-logs <dir>] | compare <testid A> <testid B> [--influx <url>]';

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

export function baseline(args) {
  const outAt = args.indexOf('--out');
  const out = outAt >= 0 ? args[outAt + 1] : null;
  const rest = outAt >= 0 ? args.filter((_, i) => i !== outAt && i !== outAt + 1) : args;
  if (rest.length !== 1 || (outAt >= 0 && !out)) fail(USAGE);
  const { path, doc } = readSummary(rest[0]);
  let b;
  try {
    b = validateBaseline(fromSummary(doc.k6, { ...doc.meta, created: doc.meta.finishedAt, source: path }), doc.meta.workflow, path);
  } catch (e) {
    fail(e.message);
  }
  const target = out || join('baselines', `${doc.meta.release}.json`);
  mkdirSync(dirname(target), { recursive: true });
  // Write then rename: a failed write never leaves half a baseline behind.
  writeFileSync(`${target}.tmp`, `${JSON.stringify(b, null, 2)}\n`);
  renameSync(`${target}.tmp`, target);
  console.log(`baseline ${target}: ${b.workflow} run ${b.testid} (release ${b.release}), ${Object.keys(b.transactions).length} transactions, ${Object.keys(b.apis).length} APIs`);
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
  const { flags: f, rest } = flags(args, ['influx', 'folio-url', 'tenant', 'module-logs']);
  if (rest.length !== 1) fail(`report takes one test id; fix: folio-perf report <testid> (make report TESTID=...)`);
  const { writeReport } = await import('./report/report.mjs');
  await userErrors(async () => {
    const r = await writeReport(rest[0], { influxUrl: f.influx || process.env.FP_INFLUX_URL, folioUrl: f['folio-url'] || process.env.FOLIO_URL, tenant: f.tenant || process.env.FOLIO_TENANT || 'fs09000000', moduleLogs: f['module-logs'] });
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

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'baseline') baseline(args);
else if (cmd === 'report') await report(args);
else if (cmd === 'compare') await compare(args);
else fail(cmd ? `unknown command "${cmd}"; fix: ${USAGE}` : USAGE);
