// End-of-run tables from k6's handleSummary `data`: the release report's response-time table
// (rows = user counts; avg, p50, p75, p95 of check-in and check-out, in seconds) and its slow-API
// table (p75 > 100 ms), plus the summary.json that `folio-perf report`/`baseline` read (lib/summary.js). Pure.

import { parseMetricKey } from '../baseline.js';
import { METRICS, TAGS, SLOW_API_P75_MS } from '../metrics.js';
import { footerLines, summaryDocument as document } from '../summary.js';
import { CHECK_IN, CHECK_OUT } from './transactions.js';

export { SLOW_API_P75_MS };
export { summaryPath } from '../summary.js';

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
export function responseTimeTable(data, transactions = [CHECK_IN, CHECK_OUT]) {
  const rows = new Map();
  for (const [key, m] of Object.entries(data.metrics || {})) {
    const { metric, tags } = parseMetricKey(key);
    if (metric !== METRICS.transactionDuration || !tags[TAGS.vus] || !tags[TAGS.transaction] || Object.keys(tags).length !== 2) continue;
    if (!transactions.includes(tags[TAGS.transaction]) || !hasSamples(m)) continue;
    const vus = Number(tags[TAGS.vus]);
    if (!rows.has(vus)) rows.set(vus, { vus });
    rows.get(vus)[tags[TAGS.transaction]] = stats(m.values);
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
    if (metric !== METRICS.httpDuration || !tags[TAGS.name] || !tags[TAGS.vus] || Object.keys(tags).length !== 2 || !hasSamples(m)) continue;
    const p75 = m.values['p(75)'];
    if (typeof p75 === 'number' && p75 > limitMs) {
      rows.push({ name: tags[TAGS.name], vus: Number(tags[TAGS.vus]), p75, p95: m.values['p(95)'], avg: m.values.avg, count: m.values.count });
    }
  }
  return rows.sort((a, b) => a.vus - b.vus || b.p75 - a.p75 || a.name.localeCompare(b.name));
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
  const out = [];
  out.push(`folio-perf ${meta.workflow} run ${meta.testid} (release ${meta.release}, target ${meta.target}, profile ${meta.profile})`);
  out.push('');
  out.push(renderResponseTimes(responseTimeTable(data)));
  out.push(renderSlowApis(slowApiTable(data)));
  out.push(...footerLines(data, meta));
  return out.join('\n') + '\n';
}

/** results/<testid>/summary.json with the release report's two tables. */
export function summaryDocument(data, meta) {
  return document(data, meta, { responseTimes: responseTimeTable(data), slowApis: slowApiTable(data) });
}
