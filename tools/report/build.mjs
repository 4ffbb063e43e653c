// The report document (sections of tables and charts) from a run's summary.json, the data
// gather.mjs read from InfluxDB and the workflow's tools module (tools/report/workflows/<name>.mjs,
// its tables and units). Pure: render-md.mjs and render-html.mjs turn it into pages.
import { errorsBlock } from './sections-errors.mjs';
import { moduleRows, modulesSection } from './sections-modules.mjs';
import { lineChart } from './charts-svg.mjs';
import { databaseSection } from './sections-db.mjs';
import { longevitySection } from './sections-longevity.mjs';
import { plural, stepLabel } from './format.mjs';

const iso = (ms) => (Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z') : '-');
const dur = (ms) => (Number.isFinite(ms) ? `${Math.round(ms / 1000)} s` : '-');

export function setupSection(summary, data, versions) {
  const m = summary.meta;
  const kv = [
    ['Test id', m.testid],
    ['Workflow', m.workflow],
    ['Release', m.release],
    ['Target', m.target],
    ['Profile', m.profile],
    ['User counts', (m.steps || data.steps.map((s) => s.vus)).join(', ')],
    ['Duration per step', m.stepDuration || '-'],
    ['Think time', m.think || '-'],
    ['Started', m.startedAt || iso(data.fromMs)],
    ['Finished', m.finishedAt || iso(data.toMs)],
  ];
  if (m.tenant) kv.push(['Tenant', m.tenant]);
  if (m.baseline) kv.push(['Gated against', m.baseline]);
  const blocks = [
    { type: 'table', id: 'setup', caption: 'Run', columns: [{ label: 'Setting' }, { label: 'Value' }], rows: kv.map(([k, v]) => [k, String(v ?? '-')]), source: 'summary.json meta' },
    {
      type: 'table',
      id: 'steps',
      caption: 'User-count steps as recorded (first to last sample)',
      columns: [{ label: 'Users', align: 'r' }, ...(data.steps.some((s) => s.phase) ? [{ label: 'Phase' }] : []), { label: 'From' }, { label: 'To' }, { label: 'Length', align: 'r' }],
      rows: data.steps.map((s) => [String(s.vus), ...(data.steps.some((x) => x.phase) ? [s.phase || '-'] : []), iso(s.fromMs), iso(s.toMs), dur(s.toMs - s.fromMs)]),
      source: 'InfluxDB: stepStart, stepEnd',
    },
    versions
      ? { type: 'table', id: 'module-versions', caption: 'Module versions (Okapi, when the report was written)', columns: [{ label: 'Module' }], rows: versions.map((v) => [v]), source: 'GET /_/proxy/tenants/{tenant}/modules' }
      : { type: 'text', text: 'Module versions: not available (the target did not answer GET /_/proxy/tenants/{tenant}/modules).' },
  ];
  return { id: 'setup', title: 'Setup', blocks };
}

export function chartsSection(data, wf) {
  const markers = data.steps.map((s) => ({ t: s.fromMs, label: stepLabel(s) }));
  const what = data.seriesTag;
  const common = { markers, t0: data.fromMs };
  const rt = lineChart({ title: `Response time per ${what}, p95 per ${data.intervalS} s`, unit: 'ms', series: data.responseTime.map((s) => ({ name: s.name, points: s.p95 })), ...common });
  const tp = lineChart({ title: `Throughput per ${what}`, unit: wf.series.unit, series: data.throughput, ...common });
  const cpu = lineChart({ title: 'Module CPU', unit: '% of a core', series: data.modules.map((m) => ({ name: m.module, points: m.cpu })), ...common });
  const mem = lineChart({ title: 'Module memory (RSS)', unit: 'MiB', series: data.modules.map((m) => ({ name: m.module, points: m.mem.map(([t, v]) => [t, v / 1048576]) })), ...common });
  return {
    id: 'charts',
    title: 'Charts',
    blocks: [
      { type: 'charts', items: [{ title: 'Response time', svg: rt }, { title: 'Module CPU', svg: cpu }] },
      { type: 'charts', items: [{ title: 'Throughput', svg: tp }, { title: 'Module memory', svg: mem }] },
    ],
  };
}

// Database and longevity: only when gather() read them (older callers' data has neither).
function extraSections(data) {
  const out = [];
  if (data.db && data.connections) out.push(databaseSection(data.db, data.connections));
  if (data.longevity) out.push(longevitySection(data.longevity, data.modules, data.seriesTag, undefined, data.steps));
  return out;
}

/**
 * @param {object} summary results/<testid>/summary.json
 * @param {object} data gather()'s result
 * @param {string[]|null} versions module ids, or null when the target did not tell them
 * @param {object} wf the workflow's tools module (tools/workflows.mjs `tools`)
 */
export function buildReport(summary, data, versions, wf) {
  const m = summary.meta;
  const notes = [];
  const expected = wf.expectedSteps(m);
  if (expected && data.steps.length < expected) notes.push(`This run was interrupted: ${data.steps.length} of ${expected} steps have samples; the report shows what exists.`);
  if (!summary.k6?.metrics) notes.push('summary.json has no k6 metrics: the run did not finish its summary.');
  const workSection = { id: m.workflow, title: wf.title, blocks: [...wf.blocks(summary), errorsBlock(data.errors)] };
  return {
    title: `folio-perf ${m.workflow} report: ${m.testid} (release ${m.release})`,
    notes,
    sections: [setupSection(summary, data, versions), workSection, modulesSection(moduleRows(data.moduleSteps)), ...extraSections(data), chartsSection(data, wf)],
    sources: data.queries,
    footer: `Tables marked "summary.json" are k6's own end-of-run statistics (interpolated percentiles); tables marked "InfluxDB" come from the InfluxQL queries listed above by name, the shapes the Grafana dashboards use (InfluxQL percentile() is nearest-rank). Written by folio-perf report.`,
  };
}
