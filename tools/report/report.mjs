// `folio-perf report <testid> [--against <testid|baseline>]`: results/<testid>/report.md and
// report.html from summary.json and InfluxDB; with --against, the previous release's run (its
// summary.json and samples) or a baseline file (baselines/<name>.json, or a path) beside this run
// in the same tables. Reads everything first, renders, then writes both pages at once.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readRun, writeAtomically } from './run-files.mjs';
import { influxClient } from './influx.mjs';
import { gather } from './gather.mjs';
import { buildReport } from './build.mjs';
import { tools } from '../workflows.mjs';
import { renderMarkdown } from './render-md.mjs';
import { renderHtml } from './render-html.mjs';
import { ReportError } from './errors.mjs';
import { readRules } from './compare.mjs';
import { againstRules } from './against.mjs';
import { validateBaseline, BaselineError } from '../../lib/baseline.js';
import { workflowSpec } from '../../lib/thresholds.js';
import { validTestId } from '../../lib/testid.js';

/** A baseline file named by --against: a path, or the name of one under baselines/. null when neither exists. */
export function baselinePath(arg, baselinesDir = 'baselines') {
  if (/\.json$/.test(arg) && existsSync(arg)) return arg;
  const named = join(baselinesDir, `${arg}.json`);
  return existsSync(named) ? named : null;
}

/** --against's previous release: {summary, data} of a run, or {baseline, name, regression} of a file. */
async function readAgainst(arg, workflow, { resultsDir, client, thresholdsFile, wf }) {
  const file = baselinePath(arg);
  if (file) {
    let b;
    try {
      b = validateBaseline(JSON.parse(readFileSync(file, 'utf8')), workflow, file);
    } catch (e) {
      if (!(e instanceof BaselineError || e instanceof SyntaxError)) throw e;
      throw new ReportError(`--against ${file} cannot be used (${e.message}); fix: give a baseline of a ${workflow} run (folio-perf baseline) or a test id`);
    }
    const doc = JSON.parse(readFileSync(thresholdsFile, 'utf8'));
    return { baseline: b, name: basename(file, '.json'), regression: workflowSpec(doc, workflow).regression };
  }
  if (!validTestId(arg) || !existsSync(join(resultsDir, arg))) throw new ReportError(`--against ${arg} is neither a run under ${resultsDir}/ nor a baseline file; fix: give the previous release's test id or a baselines/<name>.json`);
  const a = readRun(arg, resultsDir);
  if (a.summary.meta.workflow !== workflow) throw new ReportError(`--against ${arg} is a ${a.summary.meta.workflow} run and this a ${workflow} run; fix: give a run of the same workflow`);
  const data = await gather(client, a.summary, wf, { dir: a.dir });
  return { summary: a.summary, data };
}

/**
 * @param {string} testid
 * @param {{influxUrl: string, moduleLogs?: string, against?: string, resultsDir?: string, thresholdsFile?: string}} opts
 */
export async function writeReport(testid, { influxUrl, moduleLogs, against, resultsDir = 'results', thresholdsFile = 'thresholds.json' }) {
  const { dir, summary } = readRun(testid, resultsDir);
  const wf = await tools(summary.meta.workflow);
  const client = influxClient(influxUrl);
  const data = await gather(client, summary, wf, { dir, moduleLogs });
  let opts = {};
  if (against) {
    const rules = againstRules(readRules(thresholdsFile, summary.meta.workflow));
    const queries = client.used.length;
    const prev = await readAgainst(against, summary.meta.workflow, { resultsDir, client, thresholdsFile, wf });
    // the footer lists this run's queries, then the previous release's
    data.queries = [...client.used.slice(0, queries), ...client.used.slice(queries).map((q) => ({ id: `A ${q.id}`, text: q.text }))];
    opts = { against: prev, rules };
  }
  const doc = buildReport(summary, data, wf, opts);
  const md = join(dir, 'report.md');
  const html = join(dir, 'report.html');
  writeAtomically({ [md]: renderMarkdown(doc), [html]: renderHtml(doc) });
  return { md, html, doc };
}
