#!/usr/bin/env node
// folio-perf: the command-line side of a run (outside k6).
//
//   folio-perf baseline <results/<testid>/summary.json | testid> [--out baselines/<name>.json]
//       turns a finished run into a baseline file for BASELINE=… (the regression gate).
//
// (report and compare come with the report issue.) Errors: one line, the fix, exit 1.
import { readFileSync, writeFileSync, mkdirSync, existsSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fromSummary, validateBaseline } from '../lib/baseline.js';

const USAGE = 'usage: folio-perf baseline <results/<testid>/summary.json | testid> [--out baselines/<name>.json]';

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

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'baseline') baseline(args);
else fail(cmd ? `unknown command "${cmd}"; fix: ${USAGE}` : USAGE);
