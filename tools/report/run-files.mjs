// A run's files under results/: finding a run by test id (with the recent ids when it is unknown),
// reading its summary.json, and writing a page atomically (temp file, then rename), so a failure
// never leaves half a report behind.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, renameSync, mkdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { validTestId } from '../../lib/testid.js';
import { looseSummaryPath, looseWebReportPath } from '../../lib/summary.js';
import { ReportError } from './errors.mjs';

/**
 * A run k6 ran without results/<testid>/ (a plain `k6 run`, which cannot create directories) left
 * results-<testid>-summary.json, and k6's HTML report under the matching name if asked for, in the
 * directory it ran in. They are moved into results/<testid>/ (summary.json, k6-report.html), where
 * every command looks for a run; says what it moved. Returns whether it moved anything.
 */
export function fileLooseRun(testid, resultsDir = 'results', { from = '.', say = (l) => process.stderr.write(`${l}\n`) } = {}) {
  const loose = join(from, looseSummaryPath(testid));
  const dir = join(resultsDir, testid);
  if (!validTestId(testid) || !existsSync(loose) || existsSync(join(dir, 'summary.json'))) return false;
  mkdirSync(dir, { recursive: true });
  const moves = [[loose, join(dir, 'summary.json')], [join(from, looseWebReportPath(testid)), join(dir, 'k6-report.html')]];
  for (const [a, b] of moves) {
    if (!existsSync(a)) continue;
    renameSync(a, b);
    say(`folio-perf: ${a} -> ${b}`);
  }
  return true;
}

export function recentTestIds(resultsDir, n = 5) {
  if (!existsSync(resultsDir)) return [];
  return readdirSync(resultsDir)
    .filter((d) => existsSync(join(resultsDir, d, 'summary.json')))
    .map((d) => ({ d, t: statSync(join(resultsDir, d, 'summary.json')).mtimeMs }))
    .sort((a, b) => b.t - a.t)
    .slice(0, n)
    .map((x) => x.d);
}

export function readRun(testid, resultsDir = 'results') {
  if (!validTestId(testid)) throw new ReportError(`"${testid}" is not a test id; fix: give the name of a directory under ${resultsDir}/ (letters, digits, . _ -)`);
  fileLooseRun(testid, resultsDir);
  const dir = join(resultsDir, testid);
  const path = join(dir, 'summary.json');
  if (!existsSync(dir)) {
    const recent = recentTestIds(resultsDir);
    throw new ReportError(`unknown test id ${testid} (no ${dir}); fix: use one of the most recent: ${recent.length ? recent.join(', ') : `none yet, run make run first`}`);
  }
  if (!existsSync(path)) throw new ReportError(`${path} is missing: run ${testid} stopped before k6 wrote its summary; fix: run it again (make run) or report another run`);
  let doc;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ReportError(`${path} is not JSON (${e.message}); fix: run ${testid} again, its summary is damaged`);
  }
  if (doc?.format !== 'folio-perf-summary/1' || !doc.meta?.testid || !doc.meta?.workflow) throw new ReportError(`${path} is not a folio-perf run summary; fix: give the test id of a run made by make run`);
  return { dir, path, summary: doc };
}

/** Writes every {path: text} of `files`, all or none: temp files first, then the renames. */
export function writeAtomically(files) {
  const tmps = [];
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(path), { recursive: true });
      const tmp = `${path}.tmp-${process.pid}`;
      writeFileSync(tmp, text);
      tmps.push([tmp, path]);
    }
  } catch (e) {
    for (const [tmp] of tmps) rmSync(tmp, { force: true });
    throw new ReportError(`cannot write the report (${e.message}); fix: check the permissions and free space of results/`);
  }
  for (const [tmp, path] of tmps) renameSync(tmp, path);
}
