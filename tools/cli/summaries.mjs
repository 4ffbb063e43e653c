// A finished run's summary.json, named by its test id or its path, for the commands that read runs.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ReportError } from '../report/errors.mjs';
import { fileLooseRun } from '../report/run-files.mjs';

export function readSummary(arg) {
  if (!existsSync(arg)) fileLooseRun(arg);
  const path = existsSync(arg) ? arg : join('results', arg, 'summary.json');
  if (!existsSync(path)) throw new ReportError(`no summary at ${path}; fix: give a results/<testid>/summary.json written by a finished run`);
  let doc;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ReportError(`${path} is not JSON (${e.message}); fix: give the summary.json a run wrote`);
  }
  if (doc?.format !== 'folio-perf-summary/1' || !doc.k6 || !doc.meta) throw new ReportError(`${path} is not a folio-perf run summary; fix: give results/<testid>/summary.json`);
  return { path, doc };
}
