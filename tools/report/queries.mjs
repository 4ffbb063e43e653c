// The InfluxQL behind the report's InfluxDB numbers, in the shapes the dashboards use
// (dashboards/src/cico.mjs): percentile()/mean() over a run's samples filtered by testid,
// GROUP BY time(...) for curves, module_stats (Telegraf) filtered by the run's time window since
// it carries no testid. Each query has an id that the report's footer lists. Pure.
import { METRICS, FIELDS } from '../../lib/metrics.js';
import { RECORD_PREFIX } from '../../lib/record.js';

const q = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const run = (testid) => `"testid" = ${q(testid)}`;
const window = (fromMs, toMs) => `time >= ${Math.floor(fromMs)}ms AND time <= ${Math.ceil(toMs)}ms`;

export const QUERIES = {
  // First and last sample of each step: the steps' windows, from the samples' `vus` tag (and
  // `phase`, which a search run repeats each user count in; CICO's samples have none).
  stepStart: (testid) => `SELECT first("value") FROM "${METRICS.httpReqs}" WHERE ${run(testid)} GROUP BY "vus", "phase"`,
  stepEnd: (testid) => `SELECT last("value") FROM "${METRICS.httpReqs}" WHERE ${run(testid)} GROUP BY "vus", "phase"`,
  // Failed requests: an error status (4xx/5xx, 0 = no response) or one the script did not expect;
  // not setup's record of the run (a probe's 404 on the other platform is an answer: lib/record.js).
  errors: (testid) =>
    `SELECT count("value") AS "requests" FROM "${METRICS.httpReqs}" WHERE ${run(testid)} AND ` +
    `("status" =~ /^([45][0-9][0-9]|0)$/ OR "expected_response" = 'false') AND "name" !~ /^${RECORD_PREFIX.trim()} / GROUP BY "name", "status"`,
  // Response time per interval of a transaction (CICO) or a template group (search).
  responseOverTime: (testid, measurement, tag, intervalS) =>
    `SELECT mean("value") AS "avg", percentile("value", 95) AS "p95" FROM "${measurement}" WHERE ${run(testid)} ` +
    `GROUP BY time(${intervalS}s), "${tag}" fill(none)`,
  throughputOverTime: (testid, measurement, tag, intervalS) =>
    `SELECT count("value") FROM "${measurement}" WHERE ${run(testid)} GROUP BY time(${intervalS}s), "${tag}" fill(none)`,
  // The dashboards' module table, over one step's window.
  moduleStats: (fromMs, toMs) =>
    `SELECT mean("${FIELDS.cpuPercent}") AS "cpu_avg", min("${FIELDS.cpuPercent}") AS "cpu_min", max("${FIELDS.cpuPercent}") AS "cpu_max", ` +
    `mean("${FIELDS.memRss}") AS "mem_avg", max("${FIELDS.memRss}") AS "mem_max" FROM "${METRICS.moduleStats}" WHERE ${window(fromMs, toMs)} GROUP BY "module"`,
  moduleOverTime: (fromMs, toMs, intervalS) =>
    `SELECT mean("${FIELDS.cpuPercent}") AS "cpu", mean("${FIELDS.memRss}") AS "mem" FROM "${METRICS.moduleStats}" WHERE ${window(fromMs, toMs)} ` +
    `GROUP BY time(${intervalS}s), "module" fill(none)`,
  // Database connections (Telegraf's postgresql input: numbackends of the folio database) over a window.
  connections: (fromMs, toMs) =>
    `SELECT mean("numbackends") AS "avg", max("numbackends") AS "max" FROM "postgresql" WHERE ${window(fromMs, toMs)} AND "db" = 'folio'`,
  // Longevity: response time of each transaction (CICO) or template group (search) over one period.
  periodResponse: (testid, measurement, tag, fromMs, toMs) =>
    `SELECT mean("value") AS "avg", percentile("value", 50) AS "p50", percentile("value", 95) AS "p95", count("value") AS "n" ` +
    `FROM "${measurement}" WHERE ${run(testid)} AND ${window(fromMs, toMs)} GROUP BY "${tag}"`,
};

/** Bucket width for curves: about 120 points over the run, never under 1 s. */
export function intervalFor(fromMs, toMs, points = 120) {
  return Math.max(1, Math.ceil((toMs - fromMs) / 1000 / points));
}
