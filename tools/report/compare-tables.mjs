// The comparison of two runs of one workflow (A, the reference, e.g. the previous release; B, the
// candidate): every table's cells side by side with Δ % (B / A - 1), the mod-search report's
// "times better" factor (A / B: above 1 B is faster) and a verdict by the regression gate's rule
// (lib/thresholds.js: B regressed above A x (1 + tolerance) + slack). The rows and columns every
// workflow's comparison uses (its own tables: tools/report/workflows/<name>.mjs), and the module
// and error tables all runs have. Pure.
import { s3, f1, mib, signedPct, factor, plural } from './format.mjs';
import { deltaPct, timesBetter, verdict } from './stats.mjs';
import { METRICS } from '../../lib/metrics.js';

export const COLUMNS = (what) => [{ label: what, wrap: true }, { label: 'A', align: 'r' }, { label: 'B', align: 'r' }, { label: 'Δ %', align: 'r' }, { label: 'Times better', align: 'r' }, { label: 'Verdict' }];

// One row; values in `unit` (seconds are compared in ms, the gate's unit).
export function row(label, a, b, rule, { fmt = s3, toMs = 1000 } = {}) {
  const am = typeof a === 'number' ? a * toMs : a;
  const bm = typeof b === 'number' ? b * toMs : b;
  return [label, fmt(a), fmt(b), signedPct(deltaPct(a, b)), factor(timesBetter(a, b)), rule ? verdict(am, bm, rule) : '-'];
}

export const ruleText = (r) => (r ? `+${Math.round(r.tolerance * 100)} % + ${r.slackMs} ms` : 'none');

/** modules: gather()'s moduleSteps of each run. CPU and memory have no slack: the tolerance alone. */
export function compareModules(ma, mb, tolerance) {
  const idx = (steps) => new Map(steps.flatMap((st) => st.stats.map((s) => [`${s.module}|${st.vus}|${st.phase || ''}`, s])));
  const A = idx(ma);
  const B = idx(mb);
  const rule = { tolerance, slackMs: 0 };
  const rows = [];
  const keys = [...new Set([...A.keys(), ...B.keys()])].sort((x, y) => Number(x.split('|')[1]) - Number(y.split('|')[1]) || x.localeCompare(y));
  for (const k of keys) {
    const [mod, vus, phase] = k.split('|');
    const label = `${mod} (${plural(Number(vus), 'user')}${phase ? `, ${phase}` : ''})`;
    rows.push(row(`${label} CPU avg %`, A.get(k)?.cpu_avg ?? null, B.get(k)?.cpu_avg ?? null, rule, { fmt: f1, toMs: 1 }));
    rows.push(row(`${label} RSS avg MiB`, A.get(k)?.mem_avg ?? null, B.get(k)?.mem_avg ?? null, rule, { fmt: mib, toMs: 1 }));
  }
  return { type: 'table', id: 'cmp-modules', caption: `Module CPU (% of a core) and memory (RSS) per user count; verdict: +${Math.round(tolerance * 100)} % (no slack)`, columns: COLUMNS('Module (users), measure'), rows, empty: `No ${METRICS.moduleStats} for either run.`, source: 'InfluxDB: moduleStats of A and B' };
}

export function compareErrors(ea, eb) {
  const total = (e) => e.reduce((n, x) => n + (x.requests || 0), 0);
  const ta = total(ea);
  const tb = total(eb);
  return {
    type: 'table',
    id: 'cmp-errors',
    caption: 'Failed requests (error status or unexpected response)',
    columns: [{ label: 'Measure' }, { label: 'A', align: 'r' }, { label: 'B', align: 'r' }, { label: 'Verdict' }],
    rows: [['failed requests', String(ta), String(tb), tb > ta ? 'regressed' : tb < ta ? 'improved' : 'within noise']],
    source: 'InfluxDB: errors of A and B',
  };
}
