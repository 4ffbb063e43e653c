// The check-in/check-out sections: the release reports' response-time table (seconds; avg, p50,
// p75, p95 of check-in and check-out per user count) and slow-API table (p75 > 100 ms), both as
// lib/cico/summary.js computed them into summary.json, and the errors by API and status from InfluxDB.
// Pure: data in, table blocks out.
import { SLOW_API_P75_MS } from '../../lib/metrics.js';
import { s3, f1, int } from './format.mjs';

const TX = ['check-in', 'check-out'];

export function responseTimeBlock(rows) {
  const columns = [{ label: 'Users' }];
  for (const t of TX) for (const s of ['avg', 'p50', 'p75', 'p95']) columns.push({ label: `${t} ${s}`, align: 'r' });
  for (const t of TX) columns.push({ label: `${t} n`, align: 'r' });
  return {
    type: 'table',
    id: 'cico-response-times',
    caption: 'Response times (seconds; the sum of a transaction\'s request times, think time excluded)',
    columns,
    rows: rows.map((r) => [
      String(r.vus),
      ...TX.flatMap((t) => ['avg', 'p50', 'p75', 'p95'].map((s) => s3(r[t]?.[s]))),
      ...TX.map((t) => int(r[t]?.count ?? 0)),
    ]),
    empty: 'No completed transactions.',
    source: 'summary.json tables.responseTimes (k6 transaction_duration{transaction,vus})',
  };
}

export function slowApiBlock(rows) {
  return {
    type: 'table',
    id: 'cico-slow-apis',
    caption: `Slow APIs (p75 > ${SLOW_API_P75_MS} ms; milliseconds)`,
    columns: [{ label: 'API', wrap: true }, { label: 'Users', align: 'r' }, { label: 'p75', align: 'r' }, { label: 'p95', align: 'r' }, { label: 'avg', align: 'r' }, { label: 'n', align: 'r' }],
    rows: rows.map((r) => [r.name, String(r.vus), f1(r.p75), f1(r.p95), f1(r.avg), int(r.count)]),
    empty: `No API had p75 above ${SLOW_API_P75_MS} ms at any user count.`,
    source: 'summary.json tables.slowApis (k6 http_req_duration{name,vus})',
  };
}

/** errors: [{name, status, requests}] from the errors query. */
export function errorsBlock(errors) {
  const rows = [...errors].sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name) || String(a.status).localeCompare(String(b.status)));
  return {
    type: 'table',
    id: 'errors',
    caption: 'Errors by API and status (status 0: no response)',
    columns: [{ label: 'API', wrap: true }, { label: 'Status', align: 'r' }, { label: 'Requests', align: 'r' }],
    rows: rows.map((e) => [e.name || '(unnamed)', String(e.status ?? '-'), int(e.requests)]),
    empty: 'No request failed.',
    source: 'InfluxDB: errors',
  };
}

export function cicoSection(summary, errors) {
  const t = summary.tables || {};
  return {
    id: 'cico',
    title: 'Check-in/check-out',
    blocks: [responseTimeBlock(t.responseTimes || []), slowApiBlock(t.slowApis || []), errorsBlock(errors)],
  };
}
