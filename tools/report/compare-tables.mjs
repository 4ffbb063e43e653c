// The comparison of two runs of one workflow (A, the reference, e.g. the previous release; B, the
// candidate): every table's cells side by side with Δ % (B / A - 1), the mod-search report's
// "times better" factor (A / B: above 1 B is faster) and a verdict by the regression gate's rule
// (lib/thresholds.js: B regressed above A x (1 + tolerance) + slack). Pure.
import { parseMetricKey } from '../../lib/baseline.js';
import { s3, f1, mib, signedPct, factor, plural } from './format.mjs';
import { deltaPct, timesBetter, verdict } from './stats.mjs';

const COLUMNS = (what) => [{ label: what, wrap: true }, { label: 'A', align: 'r' }, { label: 'B', align: 'r' }, { label: 'Δ %', align: 'r' }, { label: 'Times better', align: 'r' }, { label: 'Verdict' }];

// One row; values in `unit` (seconds are compared in ms, the gate's unit).
function row(label, a, b, rule, { fmt = s3, toMs = 1000 } = {}) {
  const am = typeof a === 'number' ? a * toMs : a;
  const bm = typeof b === 'number' ? b * toMs : b;
  return [label, fmt(a), fmt(b), signedPct(deltaPct(a, b)), factor(timesBetter(a, b)), rule ? verdict(am, bm, rule) : '-'];
}

const ruleText = (r) => (r ? `+${Math.round(r.tolerance * 100)} % + ${r.slackMs} ms` : 'none');

export function compareResponseTimes(a, b, rule) {
  const rows = [];
  const vus = [...new Set([...(a.tables?.responseTimes || []), ...(b.tables?.responseTimes || [])].map((r) => r.vus))].sort((x, y) => x - y);
  for (const v of vus) {
    const ra = (a.tables.responseTimes || []).find((r) => r.vus === v) || {};
    const rb = (b.tables.responseTimes || []).find((r) => r.vus === v) || {};
    for (const t of ['check-in', 'check-out']) for (const s of ['avg', 'p50', 'p75', 'p95']) rows.push(row(`${plural(v, 'user')}, ${t} ${s}`, ra[t]?.[s] ?? null, rb[t]?.[s] ?? null, rule));
  }
  return { type: 'table', id: 'cmp-response-times', caption: `Response times (seconds); verdict: ${ruleText(rule)}`, columns: COLUMNS('Users, transaction, stat'), rows, empty: 'Neither run completed a transaction.', source: 'summary.json tables.responseTimes of A and B' };
}

// p75 per API and user count straight from k6's sub-metrics, so an API slow in only one run
// still gets both cells.
function apiP75(summary) {
  const out = new Map();
  for (const [key, m] of Object.entries(summary.k6?.metrics || {})) {
    const { metric, tags } = parseMetricKey(key);
    if (metric === 'http_req_duration' && tags.name && tags.vus && Object.keys(tags).length === 2 && m?.values?.count !== 0) out.set(`${tags.name}|${tags.vus}`, m.values['p(75)']);
  }
  return out;
}

export function compareSlowApis(a, b, rule) {
  const keys = new Set([...(a.tables?.slowApis || []), ...(b.tables?.slowApis || [])].map((r) => `${r.name}|${r.vus}`));
  const pa = apiP75(a);
  const pb = apiP75(b);
  const rows = [...keys]
    .map((k) => k.split('|'))
    .sort((x, y) => Number(x[1]) - Number(y[1]) || x[0].localeCompare(y[0]))
    .map(([name, vus]) => row(`${name} (${plural(Number(vus), 'user')})`, pa.get(`${name}|${vus}`) ?? null, pb.get(`${name}|${vus}`) ?? null, rule, { fmt: f1, toMs: 1 }));
  return { type: 'table', id: 'cmp-slow-apis', caption: `APIs slow (p75 > 100 ms) in either run: p75 in ms; verdict: ${ruleText(rule)}`, columns: COLUMNS('API (users)'), rows, empty: 'No API was slow in either run.', source: 'summary.json tables.slowApis and k6 http_req_duration{name,vus} of A and B' };
}

export function compareSearch(a, b, rule) {
  const steps = (s) => new Map((s.tables?.searchSteps || []).map((st) => [`${st.vus}|${st.phase}`, st]));
  const sa = steps(a);
  const sb = steps(b);
  const blocks = [];
  for (const key of [...new Set([...sa.keys(), ...sb.keys()])]) {
    const [vus, phase] = key.split('|');
    const A = sa.get(key);
    const B = sb.get(key);
    const names = [...new Set([...(A?.rows || []), ...(B?.rows || [])].map((r) => r.name))];
    const rows = [];
    for (const n of names) {
      const ra = A?.rows.find((r) => r.name === n);
      const rb = B?.rows.find((r) => r.name === n);
      rows.push(row(`${n} avg`, ra?.avg ?? null, rb?.avg ?? null, rule));
      rows.push(row(`${n} p95`, ra?.p95 ?? null, rb?.p95 ?? null, rule));
    }
    for (const k of ['regular', 'wildcard', 'wildcard-prefix']) rows.push(row(`${k} average`, A?.kinds?.[k]?.avg ?? null, B?.kinds?.[k]?.avg ?? null, rule));
    blocks.push({ type: 'table', id: `cmp-search-${vus}-${phase}`, caption: `${plural(Number(vus), 'user')}, ${phase} (seconds); verdict: ${ruleText(rule)}`, columns: COLUMNS('Template, stat'), rows, source: 'summary.json tables.searchSteps of A and B' });
  }
  return blocks;
}

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
  return { type: 'table', id: 'cmp-modules', caption: `Module CPU (% of a core) and memory (RSS) per user count; verdict: +${Math.round(tolerance * 100)} % (no slack)`, columns: COLUMNS('Module (users), measure'), rows, empty: 'No module_stats for either run.', source: 'InfluxDB: moduleStats of A and B' };
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
