// `folio-perf compare <A> <B>`: results/compare-<A>-vs-<B>/report.md and report.html.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workflowSpec, ThresholdsError } from '../../lib/thresholds.js';
import { readRun, writeAtomically } from './run-files.mjs';
import { influxClient } from './influx.mjs';
import { gather } from './gather.mjs';
import { ReportError } from './errors.mjs';
import { compareModules, compareErrors } from './compare-tables.mjs';
import { tools } from '../workflows.mjs';
import { compareDatabase, compareLongevity } from './compare-db.mjs';
import { renderMarkdown } from './render-md.mjs';
import { renderHtml } from './render-html.mjs';
import { migrationSection, platformOf } from './migration.mjs';

// A workflow without a regression section (search) is judged by CICO's transaction rule.
export const FALLBACK_RULE = { tolerance: 0.25, slackMs: 75 };

export function rulesFor(doc, workflow) {
  const reg = workflowSpec(doc, workflow).regression;
  const tx = reg.transactions || FALLBACK_RULE;
  return { transactions: { tolerance: tx.tolerance, slackMs: tx.slackMs }, apis: reg.apis ? { tolerance: reg.apis.tolerance, slackMs: reg.apis.slackMs } : tx };
}

/** The regression rules of `workflow` from a thresholds file; a bad file is a ReportError with the fix. */
export function readRules(thresholdsFile, workflow) {
  try {
    return rulesFor(JSON.parse(readFileSync(thresholdsFile, 'utf8')), workflow);
  } catch (e) {
    // Unreadable, not JSON, or not a thresholds file; anything else is a bug and stays one.
    if (!(e instanceof ThresholdsError || e instanceof SyntaxError || e.code === 'ENOENT' || e.code === 'EACCES')) throw e;
    throw new ReportError(`${thresholdsFile} cannot be used (${e.message}); fix: restore thresholds.json from the repository`);
  }
}

/** The comparison document; pure given both summaries, their gathered data, the rules and the workflow's tools module. */
export function buildComparison(A, B, dataA, dataB, rules, wf) {
  const name = A.meta.workflow;
  const blocks = wf.compareBlocks(A, B, rules);
  const setup = ['testid', 'release', 'target', 'profile', 'steps', 'stepDuration', 'startedAt', 'uiRelease'].map((k) => [k, String(A.meta[k] ?? '-'), String(B.meta[k] ?? '-')]);
  setup.push(['platform', platformOf(A) || '-', platformOf(B) || '-']);
  // Okapi against Eureka: the migration report, the hops' cost per API and per process.
  const migration = migrationSection(A, B, dataA, dataB, rules.apis);
  return {
    title: `folio-perf ${name} comparison: ${A.meta.testid} (A, ${A.meta.release}) vs ${B.meta.testid} (B, ${B.meta.release})`,
    notes: A.meta.profile !== B.meta.profile ? [`The runs used different load profiles (${A.meta.profile} vs ${B.meta.profile}): compare the rows of the user counts both ran.`] : [],
    sections: [
      { id: 'setup', title: 'Runs', blocks: [{ type: 'table', id: 'cmp-setup', caption: 'A is the reference, B the candidate', columns: [{ label: 'Setting' }, { label: 'A' }, { label: 'B' }], rows: setup, source: 'summary.json meta' }] },
      { id: 'times', title: wf.title, blocks: [...blocks, compareErrors(dataA.errors, dataB.errors)] },
      ...(migration ? [migration] : []),
      { id: 'modules', title: 'Modules', blocks: [compareModules(dataA.moduleSteps, dataB.moduleSteps, rules.transactions.tolerance)] },
      { id: 'database', title: 'Database', blocks: compareDatabase(dataA, dataB, rules.apis) },
      { id: 'longevity', title: 'Longevity', blocks: compareLongevity(dataA, dataB, rules.transactions) },
    ],
    sources: [...dataA.queries.map((q) => ({ id: `A ${q.id}`, text: q.text })), ...dataB.queries.map((q) => ({ id: `B ${q.id}`, text: q.text }))],
    footer: `Δ % = B / A - 1; times better = A / B (above 1: B is faster). Verdicts follow the regression gate (thresholds.json "regression"): regressed when B > A x (1 + tolerance) + slack, improved when A > B x (1 + tolerance) + slack, else within noise. Written by folio-perf compare.`,
  };
}

export async function writeComparison(idA, idB, { influxUrl, resultsDir = 'results', thresholdsFile = 'thresholds.json' }) {
  const a = readRun(idA, resultsDir);
  const b = readRun(idB, resultsDir);
  if (a.summary.meta.workflow !== b.summary.meta.workflow) {
    throw new ReportError(`${idA} is a ${a.summary.meta.workflow} run and ${idB} a ${b.summary.meta.workflow} run; fix: compare two runs of the same workflow`);
  }
  const rules = readRules(thresholdsFile, a.summary.meta.workflow);
  const wf = await tools(a.summary.meta.workflow);
  const client = influxClient(influxUrl);
  const dataA = await gather(client, a.summary, wf, { dir: a.dir });
  client.used.length = 0;
  const dataB = await gather(client, b.summary, wf, { dir: b.dir });
  const doc = buildComparison(a.summary, b.summary, dataA, dataB, rules, wf);
  const dir = join(resultsDir, `compare-${idA}-vs-${idB}`);
  const md = join(dir, 'report.md');
  const html = join(dir, 'report.html');
  writeAtomically({ [md]: renderMarkdown(doc), [html]: renderHtml(doc) });
  return { md, html, doc };
}
