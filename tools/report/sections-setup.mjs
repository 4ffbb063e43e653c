// The Setup section: what was tested, as the run's setup() recorded it before the first user
// started (summary.json meta.record, lib/record.js): platform, gateway and module versions, the
// folio-perf commit, the k6 version, the load, the data size and the machine; then the user-count
// steps as InfluxDB recorded them. Never asks the target: a report written later, after the target
// moved to another release, still describes the release that was tested. Pure.
import { int, plural, stepLabel } from './format.mjs';
import { table, plain } from './doc.mjs';

const iso = (ms) => (Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z') : '-');
const dur = (ms) => (Number.isFinite(ms) ? `${Math.round(ms / 1000)} s` : '-');
const gib = (b) => (Number.isFinite(b) ? `${(b / 2 ** 30).toFixed(1)} GiB` : '-');
const count = (n) => (Number.isFinite(n) ? int(n) : 'not recorded');

/** The run's settings and its record as [setting, value] rows. */
export function runRows(summary, data) {
  const m = summary.meta;
  const r = m.record || null;
  const rows = [
    ['Test id', m.testid],
    ['Workflow', m.workflow],
    ['Release', m.release],
    ['Target', m.target],
  ];
  if (m.tenant) rows.push(['Tenant', m.tenant]);
  rows.push(
    ['Platform', r ? r.platform || 'not recorded' : 'not recorded'],
    ['Gateway', r?.gateway || 'not recorded'],
    ['Profile', m.profile],
    ['User counts', (m.steps || data.steps.map((s) => s.vus)).join(', ')],
    ['Duration per step', m.stepDuration || (m.stepSeconds ? `${m.stepSeconds}s` : '-')],
    ['Think time', m.think || r?.load?.think || 'none'],
    ['Data: items', count(r?.data?.items)],
    ['Data: users', count(r?.data?.users)],
    ['Data: instances', count(r?.data?.instances)],
    ['Machine (k6)', r?.machine ? `${r.machine.cores ? plural(r.machine.cores, 'core') : 'cores not recorded'}, ${r.machine.memoryBytes ? gib(r.machine.memoryBytes) : 'memory not recorded'}` : 'not recorded'],
    ['folio-perf commit', r?.folioPerf?.commit ? `${r.folioPerf.commit.slice(0, 12)}${r.folioPerf.ref ? ` (${r.folioPerf.ref.replace(/^refs\/heads\//, '')})` : ''}` : 'not recorded'],
    ['k6', r?.k6?.version || 'not recorded'],
    ['Recorded at', r?.capturedAt || 'not recorded'],
    ['Started', m.startedAt || iso(data.fromMs)],
    ['Finished', m.finishedAt || iso(data.toMs)],
  );
  if (m.baseline) rows.push(['Gated against', m.baseline]);
  return rows;
}

export function setupSection(summary, data) {
  const r = summary.meta.record || null;
  const blocks = [
    table({
      id: 'setup',
      caption: 'The run: settings, and what its setup recorded before the first user started',
      columns: [{ label: 'Setting', get: (d) => d[0] }, { label: 'Value', get: (d) => d[1], fmt: plain }],
      data: runRows(summary, data),
      key: (d) => d[0],
      source: 'summary.json meta and meta.record',
    }),
    table({
      id: 'steps',
      caption: 'User-count steps as recorded (first to last sample)',
      columns: [
        { label: 'Users', align: 'r', get: (s) => s.vus },
        ...(data.steps.some((s) => s.phase) ? [{ label: 'Phase', get: (s) => s.phase || '-' }] : []),
        { label: 'From', get: (s) => iso(s.fromMs) },
        { label: 'To', get: (s) => iso(s.toMs) },
        { label: 'Length', align: 'r', get: (s) => dur(s.toMs - s.fromMs) },
      ],
      data: data.steps,
      key: (s) => stepLabel(s),
      labelCols: data.steps.some((s) => s.phase) ? 2 : 1,
      source: 'InfluxDB: stepStart, stepEnd',
    }),
  ];
  if (r && r.modules && r.modules.length) {
    const apps = Boolean(r.applications);
    blocks.push(
      table({
        id: 'module-versions',
        caption: `Module versions (${r.platform}, announced by the target at the run's start, ${r.capturedAt})`,
        columns: [{ label: 'Module', get: (x) => x.name }, { label: 'Version', get: (x) => x.version, fmt: plain }, ...(apps ? [{ label: 'Application', get: (x) => x.application, fmt: plain }] : [])],
        data: r.modules,
        key: (x) => x.id,
        source: r.modulesSource,
      }),
    );
  } else {
    blocks.push({ type: 'text', text: r ? `Module versions: not recorded (${(r.problems || []).find((p) => p.startsWith('module versions')) || 'the target listed none'}).` : "Module versions: not recorded (summary.json has no record of the run's start: a run made before folio-perf kept one)." });
  }
  const problems = (r?.problems || []).filter((p) => !p.startsWith('module versions'));
  if (problems.length) blocks.push({ type: 'text', text: `Not recorded at the start: ${problems.join('; ')}.` });
  return { id: 'setup', title: 'Setup', blocks };
}
