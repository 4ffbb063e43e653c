// End-of-run tables from k6's handleSummary `data`: the release report's response-time table
// (rows = user counts; avg, p50, p75, p95 of check-in and check-out, in seconds) and its slow-API
// table (p75 > 100 ms), plus the summary.json that `folio-perf report`/`baseline` read. Pure.

import { parseMetricKey } from './baseline.js';
import { NOOP, NOOP_RATE, NOOP_COUNT } from './thresholds.js';
import { SLOW_API_P75_MS } from './metrics.js';

export { SLOW_API_P75_MS };

const COLS = [
  ['avg', 'avg'],
  ['p50', 'p(50)'],
  ['p75', 'p(75)'],
  ['p95', 'p(95)'],
];

function stats(values) {
  const out = { count: values.count === undefined ? null : values.count };
  for (const [k, s] of COLS) out[k] = typeof values[s] === 'number' ? values[s] / 1000 : null;
  return out;
}

function hasSamples(m) {
  return m && m.values && (m.values.count === undefined ? true : m.values.count > 0);
}

/**
 * Rows of table 1: one per `vus` value, in ascending order, seconds.
 * [{ vus: 8, 'check-in': {avg, p50, p75, p95, count}, 'check-out': {...} }]
 */
export function responseTimeTable(data, transactions = ['check-in', 'check-out']) {
  const rows = new Map();
  for (const [key, m] of Object.entries(data.metrics || {})) {
    const { metric, tags } = parseMetricKey(key);
    if (metric !== 'transaction_duration' || !tags.vus || !tags.transaction || Object.keys(tags).length !== 2) continue;
    if (!transactions.includes(tags.transaction) || !hasSamples(m)) continue;
    const vus = Number(tags.vus);
    if (!rows.has(vus)) rows.set(vus, { vus });
    rows.get(vus)[tags.transaction] = stats(m.values);
  }
  return [...rows.values()].sort((a, b) => a.vus - b.vus);
}

/**
 * Table 3: every API whose p75 exceeds 100 ms, per user count (ms), slowest first within a count.
 */
export function slowApiTable(data, limitMs = SLOW_API_P75_MS) {
  const rows = [];
  for (const [key, m] of Object.entries(data.metrics || {})) {
    const { metric, tags } = parseMetricKey(key);
    if (metric !== 'http_req_duration' || !tags.name || !tags.vus || Object.keys(tags).length !== 2 || !hasSamples(m)) continue;
    const p75 = m.values['p(75)'];
    if (typeof p75 === 'number' && p75 > limitMs) {
      rows.push({ name: tags.name, vus: Number(tags.vus), p75, p95: m.values['p(95)'], avg: m.values.avg, count: m.values.count });
    }
  }
  return rows.sort((a, b) => a.vus - b.vus || b.p75 - a.p75 || a.name.localeCompare(b.name));
}

// Thresholds that are real rules (not the summary's no-op ones), with their outcome.
export function thresholdResults(data) {
  const out = [];
  for (const [key, m] of Object.entries(data.metrics || {})) {
    for (const [expr, r] of Object.entries((m && m.thresholds) || {})) {
      const e = expr.replace(/\s/g, '');
      if (e === NOOP || e === NOOP_RATE || e === NOOP_COUNT) continue;
      out.push({ metric: key, expr, ok: !!(r && r.ok) });
    }
  }
  return out.sort((a, b) => Number(a.ok) - Number(b.ok) || a.metric.localeCompare(b.metric));
}

export function checkTotals(data) {
  let passes = 0;
  let fails = 0;
  const failing = [];
  const walk = (g) => {
    if (!g) return;
    for (const c of g.checks || []) {
      passes += c.passes || 0;
      fails += c.fails || 0;
      if (c.fails) failing.push({ name: c.name, fails: c.fails, passes: c.passes });
    }
    for (const sub of g.groups || []) walk(sub);
  };
  walk(data.root_group);
  return { passes, fails, failing };
}

const s3 = (v) => (v === null || v === undefined ? '-' : v.toFixed(3));
const ms = (v) => (typeof v === 'number' ? v.toFixed(1) : '-');
function pad(cells, widths) {
  return cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
}

export function renderResponseTimes(rows) {
  if (rows.length === 0) return 'Response times: no completed transactions.\n';
  const head = ['users', 'in avg', 'in p50', 'in p75', 'in p95', 'out avg', 'out p50', 'out p75', 'out p95', 'n in', 'n out'];
  const w = [5, 7, 7, 7, 7, 8, 8, 8, 8, 6, 6];
  const lines = ['Response times (seconds; check-in / check-out, think time excluded)', pad(head, w)];
  for (const r of rows) {
    const i = r['check-in'] || {};
    const o = r['check-out'] || {};
    lines.push(pad([r.vus, s3(i.avg), s3(i.p50), s3(i.p75), s3(i.p95), s3(o.avg), s3(o.p50), s3(o.p75), s3(o.p95), i.count ?? 0, o.count ?? 0], w));
  }
  return lines.join('\n') + '\n';
}

export function renderSlowApis(rows, limitMs = SLOW_API_P75_MS) {
  if (rows.length === 0) return `Slow APIs (p75 > ${limitMs} ms): none.\n`;
  const w = [Math.max(4, ...rows.map((r) => r.name.length)), 5, 9, 9, 9, 7];
  const lines = [`Slow APIs (p75 > ${limitMs} ms; milliseconds)`, pad(['API', 'users', 'p75', 'p95', 'avg', 'n'], w)];
  for (const r of rows) lines.push(pad([r.name, r.vus, ms(r.p75), ms(r.p95), ms(r.avg), r.count ?? '-'], w));
  return lines.join('\n') + '\n';
}

export function renderText(data, meta) {
  const rt = responseTimeTable(data);
  const slow = slowApiTable(data);
  const th = thresholdResults(data);
  const ch = checkTotals(data);
  const out = [];
  out.push(`folio-perf ${meta.workflow} run ${meta.testid} (release ${meta.release}, target ${meta.target}, profile ${meta.profile})`);
  out.push('');
  out.push(renderResponseTimes(rt));
  out.push(renderSlowApis(slow));
  const total = ch.passes + ch.fails;
  out.push(`Checks: ${ch.passes}/${total} passed${ch.fails ? `; failing: ${ch.failing.slice(0, 5).map((c) => `${c.name} (${c.fails})`).join('; ')}` : ''}`);
  const failed = th.filter((t) => !t.ok);
  out.push(`Thresholds: ${th.length - failed.length}/${th.length} passed`);
  for (const t of failed) out.push(`  FAILED ${t.metric} ${t.expr}`);
  if (meta.summaryPath) out.push(`Summary: ${meta.summaryPath}`);
  return out.join('\n') + '\n';
}

/**
 * The JSON written to results/<testid>/summary.json: run metadata, the computed tables and k6's
 * own data (without setup_data, which holds the test-data pools).
 */
export function summaryDocument(data, meta) {
  const k6 = {};
  for (const [k, v] of Object.entries(data)) if (k !== 'setup_data') k6[k] = v;
  return {
    format: 'folio-perf-summary/1',
    meta,
    tables: {
      responseTimes: responseTimeTable(data),
      slowApis: slowApiTable(data),
    },
    thresholds: thresholdResults(data),
    checks: checkTotals(data),
    k6,
  };
}

export function summaryPath(testid) {
  return `results/${testid}/summary.json`;
}

// testid: from TESTID (the Makefile generates one per run), else cico-<UTC timestamp>-<release>.
// k6 evaluates the init context once per VU, so a generated id can differ between VUs: scripts read
// the id back from the consolidated options (k6/execution) rather than recomputing it.
export function makeTestId(workflow, release, now = new Date()) {
  const ts = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${workflow}-${ts}-${release}`;
}

export function validTestId(id) {
  return typeof id === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id);
}
