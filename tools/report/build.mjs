// The report document from a run's summary.json, the data gather.mjs read from InfluxDB and the
// workflow's tools module (tools/report/workflows/<name>.mjs: its tables, units and summary
// rules). Findings first: the Summary (findings.mjs) cites the tables of the sections below it,
// the Verdict answers pass/regress, then Setup (what was tested, recorded at the run's start), the
// workflow's tables with their charts, Modules with theirs, Database, and Longevity only when the
// run can be judged for it. With a previous release (against), its figures stand beside this run's
// in the same tables (against.mjs). Pure: render-md.mjs and render-html.mjs turn it into pages.
import { errorsBlock } from './sections-errors.mjs';
import { moduleRows, modulesSection } from './sections-modules.mjs';
import { lineChart } from './charts-svg.mjs';
import { databaseSection } from './sections-db.mjs';
import { longevitySection } from './sections-longevity.mjs';
import { setupSection } from './sections-setup.mjs';
import { verdictBlock, thresholdsBlock, comparisonBlock, baselineBlock } from './sections-verdict.mjs';
import { againstBlock, tally } from './against.mjs';
import { rulesFor as findingRules, runRules, code } from './findings.mjs';
import { longevityJudgement } from './longevity.mjs';
import { numberTables, tablesById } from './doc.mjs';
import { stepLabel } from './format.mjs';

/** The charts of a run: response time and throughput (its workflow's section), module CPU and memory. */
export function charts(data, wf) {
  const markers = data.steps.map((s) => ({ t: s.fromMs, label: stepLabel(s) }));
  const what = data.seriesTag;
  const common = { markers, t0: data.fromMs };
  const rt = lineChart({ title: `Response time per ${what}, p95 per ${data.intervalS} s`, unit: 'ms', series: data.responseTime.map((s) => ({ name: s.name, points: s.p95 })), ...common });
  const tp = lineChart({ title: `Throughput per ${what}`, unit: wf.series.unit, series: data.throughput, ...common });
  const cpu = lineChart({ title: 'Module CPU', unit: '% of a core', series: data.modules.map((m) => ({ name: m.module, points: m.cpu })), ...common });
  const mem = lineChart({ title: 'Module memory (RSS)', unit: 'MiB', series: data.modules.map((m) => ({ name: m.module, points: m.mem.map(([t, v]) => [t, v / 1048576]) })), ...common });
  return {
    work: { type: 'charts', items: [{ title: 'Response time', svg: rt }, { title: 'Throughput', svg: tp }] },
    modules: { type: 'charts', items: [{ title: 'Module CPU', svg: cpu }, { title: 'Module memory', svg: mem }] },
  };
}

// The sections with the run's own tables (the Summary and Verdict come on top of them).
function tableSections(summary, data, wf) {
  const m = summary.meta;
  const ch = charts(data, wf);
  const sections = [
    setupSection(summary, data),
    { id: m.workflow, title: wf.title, blocks: [...wf.blocks(summary), errorsBlock(data.errors), ch.work] },
    modulesSection(moduleRows(data.moduleSteps), { modules: data.modules, steps: data.steps, charts: ch.modules }),
  ];
  if (data.db && data.connections) sections.push(databaseSection(data.db, data.connections));
  if (data.longevity && longevityJudgement(data.steps).judged) sections.push(longevitySection(data.longevity, data.seriesTag, wf.series.timeUnit || 's'));
  return sections;
}

// What a finding calls the previous release: its release label, or its test id when both runs
// carry the same label.
function againstNames(summary, against) {
  if (!against) return { label: null, name: null };
  if (against.baseline) {
    const b = against.baseline;
    return { label: `baseline ${against.name} (release ${b.release}, run ${b.testid})`, name: code(b.release && b.release !== summary.meta.release ? b.release : against.name) };
  }
  const a = against.summary.meta;
  return { label: `${a.release} (${a.testid})`, name: code(a.release !== summary.meta.release ? a.release : a.testid) };
}

/**
 * @param {object} summary results/<testid>/summary.json
 * @param {object} data gather()'s result
 * @param {object} wf the workflow's tools module (tools/workflows.mjs `tools`)
 * @param {object} [opts.against] the previous release: {summary, data} of a run, or {baseline, name}
 *   of a baselines/ file; with opts.rules, the regression rules (compare.mjs rulesFor + against.mjs againstRules)
 */
export function buildReport(summary, data, wf, { against = null, rules = null } = {}) {
  const m = summary.meta;
  const notes = [];
  const expected = wf.expectedSteps(m);
  if (expected && data.steps.length < expected) notes.push(`This run was interrupted: ${data.steps.length} of ${expected} steps have samples; the report shows what exists.`);
  if (!summary.k6?.metrics) notes.push('summary.json has no k6 metrics: the run did not finish its summary.');
  const names = againstNames(summary, against);

  let sections = tableSections(summary, data, wf);
  const verdictBlocks = [];
  let compared = null;
  if (against?.summary) {
    // A's tables built by the same code, then each of ours with A's figures beside it
    const aTables = tablesById({ sections: tableSections(against.summary, against.data, wf) });
    sections = sections.map((s) => ({ ...s, blocks: s.blocks.map((b) => (b.type === 'table' ? againstBlock(b, aTables.get(b.id) || null, rules, names.label) : b)) }));
    const t = tally(sections.flatMap((s) => s.blocks));
    const titles = new Map(sections.flatMap((s) => s.blocks).filter((b) => b.type === 'table').map((b) => [b.id, b.caption.split(/ \(|;/)[0]]));
    compared = { label: names.label, tally: t };
    verdictBlocks.push(comparisonBlock(t, (id) => titles.get(id) || id));
  } else if (against?.baseline) {
    const b = baselineBlock(summary, against.baseline, against.regression, rules, names.label);
    compared = { label: names.label, tally: tally([b]) };
    verdictBlocks.push(b);
  }
  const notJudged = m.baseline
    ? `no previous release given; the run was gated against ${m.baseline}, whose limits are among the thresholds (report ${m.testid} --against ${m.baseline} sets the figures side by side)`
    : `no previous release given (report ${m.testid} --against <testid|baseline>)`;
  const verdict = { id: 'verdict', title: 'Verdict', blocks: [verdictBlock(summary, compared, notJudged), thresholdsBlock(summary), ...verdictBlocks] };
  const doc = {
    title: `folio-perf ${m.workflow} report: ${m.testid} (release ${m.release})${against ? ` against ${names.label}` : ''}`,
    notes,
    sections: [verdict, ...sections],
    sources: data.queries,
    footer: `Tables marked "summary.json" are k6's own end-of-run statistics (interpolated percentiles); tables marked "InfluxDB" come from the InfluxQL queries listed above by name, the shapes the Grafana dashboards use (InfluxQL percentile() is nearest-rank).${against ? ' Beside each figure of this run (B) stands the previous release\'s (A); Δ = B / A - 1; the verdicts follow the regression gate (thresholds.json "regression").' : ''} Written by folio-perf report.`,
  };
  const byId = tablesById(doc);
  const items = runRules(findingRules(wf), {
    t: (id) => byId.get(id),
    tables: () => [...byId.values()],
    summary,
    data,
    against: names.label,
    againstName: names.name,
  });
  doc.sections.unshift({ id: 'summary', title: 'Summary', blocks: [{ type: 'findings', items }] });
  return numberTables(doc);
}
