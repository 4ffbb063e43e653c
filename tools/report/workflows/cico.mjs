// The check-in/check-out workflow in the Node tools (found through tools/workflows.mjs): its
// report tables, the release reports' response-time table (seconds; avg, p50, p75, p95 of check-in
// and check-out per user count) and slow-API table (p75 > 100 ms), both as lib/cico/summary.js
// computed them into summary.json; its comparison rows; what its charts follow; how its runners'
// summaries merge; its k8s TestRun. Pure: data in, table blocks out.
import { METRICS, TAGS, SLOW_API_P75_MS } from '../../../lib/metrics.js';
import { parseMetricKey } from '../../../lib/baseline.js';
import { CHECK_IN, CHECK_OUT } from '../../../lib/cico/transactions.js';
import { summaryDocument } from '../../../lib/cico/summary.js';
import { s3, f1, int, plural } from '../format.mjs';
import { COLUMNS, row, ruleText } from '../compare-tables.mjs';

export const title = 'Check-in/check-out';
// The charts and the longevity section follow each transaction's times over the run.
export const series = { measurement: METRICS.transactionDuration, tag: TAGS.transaction, unit: 'transactions/s' };
// The make targets a run needs beyond the stack, k6 and minifolio: none.
export const needs = [];

const TX = [CHECK_IN, CHECK_OUT];

/** User-count steps the run plans: one per user count. */
export function expectedSteps(meta) {
  return (meta.steps || []).length;
}

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
    source: `summary.json tables.responseTimes (k6 ${METRICS.transactionDuration}{transaction,vus})`,
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
    source: `summary.json tables.slowApis (k6 ${METRICS.httpDuration}{name,vus})`,
  };
}

/** The report's tables of this workflow, from summary.json. */
export function blocks(summary) {
  const t = summary.tables || {};
  return [responseTimeBlock(t.responseTimes || []), slowApiBlock(t.slowApis || [])];
}

// ---- comparison of two runs -------------------------------------------------------------------

export function compareResponseTimes(a, b, rule) {
  const rows = [];
  const vus = [...new Set([...(a.tables?.responseTimes || []), ...(b.tables?.responseTimes || [])].map((r) => r.vus))].sort((x, y) => x - y);
  for (const v of vus) {
    const ra = (a.tables.responseTimes || []).find((r) => r.vus === v) || {};
    const rb = (b.tables.responseTimes || []).find((r) => r.vus === v) || {};
    for (const t of TX) for (const s of ['avg', 'p50', 'p75', 'p95']) rows.push(row(`${plural(v, 'user')}, ${t} ${s}`, ra[t]?.[s] ?? null, rb[t]?.[s] ?? null, rule));
  }
  return { type: 'table', id: 'cmp-response-times', caption: `Response times (seconds); verdict: ${ruleText(rule)}`, columns: COLUMNS('Users, transaction, stat'), rows, empty: 'Neither run completed a transaction.', source: 'summary.json tables.responseTimes of A and B' };
}

// p75 per API and user count straight from k6's sub-metrics, so an API slow in only one run
// still gets both cells.
function apiP75(summary) {
  const out = new Map();
  for (const [key, m] of Object.entries(summary.k6?.metrics || {})) {
    const { metric, tags } = parseMetricKey(key);
    if (metric === METRICS.httpDuration && tags[TAGS.name] && tags[TAGS.vus] && Object.keys(tags).length === 2 && m?.values?.count !== 0) out.set(`${tags[TAGS.name]}|${tags[TAGS.vus]}`, m.values['p(75)']);
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
  return { type: 'table', id: 'cmp-slow-apis', caption: `APIs slow (p75 > ${SLOW_API_P75_MS} ms) in either run: p75 in ms; verdict: ${ruleText(rule)}`, columns: COLUMNS('API (users)'), rows, empty: 'No API was slow in either run.', source: `summary.json tables.slowApis and k6 ${METRICS.httpDuration}{name,vus} of A and B` };
}

/** The comparison's tables of this workflow: response times by the transaction rule, slow APIs by the API rule. */
export function compareBlocks(a, b, rules) {
  return [compareResponseTimes(a, b, rules.transactions), compareSlowApis(a, b, rules.apis)];
}

/** summary.json of a run split over runners, from their merged k6 data (tools/verdict/merge-summary.mjs). */
export function summarize(data, meta) {
  return summaryDocument(data, meta);
}

// Its k6-operator TestRun (tools/k8s-base.mjs): every pod selects its test data from FOLIO's
// database, so it needs the database password from the Secret.
export const k8s = {
  head: [
    '# Check-in/check-out (scripts/check-in-check-out.js) split over `parallelism` k6 pods. Every pod',
    "# selects its test data from FOLIO's database (DATA=db in the env file) and keeps only the items",
    "# and patrons of its execution segment (lib/segments.js), so runners never collide; each pod's",
    "# teardown checks in only its own segment's loans. The verdict over all pods' samples:",
    '#   node tools/folio-perf.mjs verdict <TESTID> --influx <InfluxDB URL>',
  ],
  secrets: ['FOLIO_DB_PASSWORD'],
};

