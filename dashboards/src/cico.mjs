// The check-in/check-out workflow's dashboards (DASHBOARDS, found by dashboards/src/index.mjs):
// this module's "FOLIO check-in/check-out", one run of scripts/check-in-check-out.js as the
// release reports looked at it — the run's check-in/check-out times, throughput and errors, the
// slow APIs, and module CPU beside them — and the release comparison of two runs
// (cico-comparison.mjs).
import { METRICS, FIELDS } from '../../lib/metrics.js';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import * as comparison from './cico-comparison.mjs';
import { openRunUrl, runWindowAnnotations, runsTable } from './runs.mjs';
import { sloMs } from './slo.mjs';
import {
  SLOW_API_P75_MS,
  activeRateQuery,
  baseDashboard,
  highlightAbove,
  influxql,
  layout,
  releaseVariable,
  runFilter,
  runVariable,
  seriesTarget,
  statPanel,
  statsTable,
  thresholds,
  timeseriesPanel,
  vusQuery,
  wholeRun,
} from './panels.mjs';

export const UID = 'folio-cico';
export const FILE = 'folio-check-in-check-out.json';

const RUN = runFilter('testid');
const TX_NAME = { 'check-out': 'Check-out', 'check-in': 'Check-in' };

// Run-level numbers are computed over every sample of the run, without
// GROUP BY time: the max or mean of per-bucket p95s is not the run's p95
// (grafana/k6 : metrics/sink.go TrendSink.P interpolates;
// influxdata/influxdb : query/call_iterator.go). InfluxQL's percentile is nearest-rank, so it can
// differ slightly from k6's interpolated summary on the same samples.
function runStat(transaction, fn, title, what, sloMsLimit) {
  return statPanel({
    title,
    description:
      `${what} of every ${transaction} transaction in the selected run (sum of the request times of one UI ` +
      `transaction, think time excluded), over the whole run rather than per interval.`,
    unit: 'ms',
    // Red above the SLO (thresholds.json), the budget the run's verdict judges.
    ...(sloMsLimit ? { thresholds: thresholds('green', [sloMsLimit, 'red']) } : {}),
    targets: [
      influxql('A', `SELECT ${fn} FROM "${METRICS.transactionDuration}" ${wholeRun(`${RUN} AND "transaction" = '${transaction}'`)}`),
    ],
  });
}

function percentilesOverTime(transaction) {
  const slo = sloMs('cico', 'transactions', transaction);
  return timeseriesPanel({
    title: `${TX_NAME[transaction]} p50 / p75 / p95`,
    description:
      `Percentiles of the ${transaction} transaction time per interval. Per-interval percentiles show the ` +
      `trend; the run's own p95 is in the stat panels above. The red line is the p95 SLO of thresholds.json ` +
      `(${slo} ms).`,
    unit: 'ms',
    min: 0,
    sloMs: slo,
    targets: [
      seriesTarget('A', {
        select: 'percentile("value", 50) AS "p50", percentile("value", 75) AS "p75", percentile("value", 95) AS "p95"',
        measurement: METRICS.transactionDuration,
        where: `${RUN} AND "transaction" = '${transaction}'`,
      }),
    ],
  });
}

const summary = [
  [runStat('check-out', 'mean("value")', 'Check-out avg', 'Average'), 3, 4],
  [runStat('check-out', 'percentile("value", 95)', 'Check-out p95', '95th percentile', sloMs('cico', 'transactions', 'check-out')), 3, 4],
  [runStat('check-in', 'mean("value")', 'Check-in avg', 'Average'), 3, 4],
  [runStat('check-in', 'percentile("value", 95)', 'Check-in p95', '95th percentile', sloMs('cico', 'transactions', 'check-in')), 3, 4],
  [
    statPanel({
      title: 'Transactions/s',
      description:
        'Completed check-in and check-out transactions per second while the run was active: the mean of ' +
        'per-second counts, ignoring seconds without any transaction.',
      unit: 'ops',
      decimals: 2,
      targets: [
        influxql('A', activeRateQuery(METRICS.transactionDuration, RUN)),
      ],
    }),
    3,
    4,
  ],
  [
    statPanel({
      title: 'Failed transactions',
      description:
        'Share of check-in/check-out transactions in which any request failed its check (k6 Rate ' +
        `\`${METRICS.transactionFailed}\`).`,
      unit: 'percent',
      decimals: 2,
      thresholds: thresholds('green', [1, 'red']),
      targets: [
        influxql('A', `SELECT mean("value") * 100 FROM "${METRICS.transactionFailed}" ${wholeRun(RUN)}`),
      ],
    }),
    3,
    4,
  ],
  [
    statPanel({
      title: 'Failed requests',
      description: `Share of HTTP requests k6 counted as failed (\`${METRICS.httpFailed}\`: status outside 200–399 or no response).`,
      unit: 'percent',
      decimals: 2,
      thresholds: thresholds('green', [1, 'red']),
      targets: [influxql('A', `SELECT mean("value") * 100 FROM "${METRICS.httpFailed}" ${wholeRun(RUN)}`)],
    }),
    3,
    4,
  ],
  [
    statPanel({
      title: 'Virtual users',
      description: 'Highest number of concurrent virtual users (simulated circulation desk staff) in the run.',
      unit: 'none',
      targets: [influxql('A', vusQuery(RUN))],
    }),
    3,
    4,
  ],
];

// The release reports' table 1 (the HTML report's response-time table): one row per user count
// (k6 tag `vus`, the profile's step) and transaction. One SLO per transaction cannot colour one
// column, so p95 turns red above the tighter budget, and the description names each.
const TX_SLO = Object.keys(TX_NAME).map((t) => [t, sloMs('cico', 'transactions', t)]);
const byUserCount = [
  [
    statsTable({
      title: 'Check-in / check-out by user count',
      description:
        'Average, p50, p75 and p95 of check-in and check-out per user count (k6 tag `vus`: the load step), ' +
        'over the whole run: the report\'s response-time table. p95 turns red above the tighter p95 SLO of ' +
        `thresholds.json (${TX_SLO.map(([t, ms]) => `${t} ${ms} ms`).join(', ')}).`,
      unit: 'ms',
      fields:
        'count("value") AS "n", mean("value") AS "avg", percentile("value", 50) AS "p50", ' +
        'percentile("value", 75) AS "p75", percentile("value", 95) AS "p95"',
      measurement: METRICS.transactionDuration,
      where: RUN,
      anyTime: true,
      by: ['vus', 'transaction'],
      overrides: [
        { name: 'vus', properties: [{ id: 'displayName', value: 'Users' }, { id: 'unit', value: 'none' }] },
        { name: 'n', properties: [{ id: 'unit', value: 'none' }] },
        { name: 'p95', properties: highlightAbove(Math.min(...TX_SLO.map(([, ms]) => ms))) },
      ],
      sortBy: [{ displayName: 'Users', desc: false }],
    }),
    24,
    8,
  ],
];

// The selected run's window, with the links that open it: this dashboard on the run's time range
// (time series and Telegraf panels follow the range), and the release comparison with it as B.
const window = [
  [
    runsTable({
      title: 'Run window',
      description:
        'The selected run\'s first and last sample (k6 `vus`). Click the run for this dashboard on its time ' +
        'range (the time series and module panels follow the range; the numbers above do not need it), or ' +
        'for the release comparison with this run as B.',
      where: RUN,
      links: [
        { title: 'Open this run on its time range', url: openRunUrl(UID) },
        {
          title: 'Compare with another run (release comparison, this run as B)',
          url: `/d/${comparison.UID}/?var-testid_b=\${__data.fields.testid}&var-release=$__all`,
        },
      ],
    }),
    24,
    4,
  ],
];

const overTime = [
  [percentilesOverTime('check-out'), 12, 8],
  [percentilesOverTime('check-in'), 12, 8],
  [
    timeseriesPanel({
      title: 'Transactions/s',
      description: 'Completed transactions per second, per transaction type.',
      unit: 'ops',
      min: 0,
      targets: [seriesTarget('A', { select: 'count("value") * 1000 / $__interval_ms', measurement: METRICS.transactionDuration, where: RUN, by: 'transaction' })],
    }),
    8,
    8,
  ],
  [
    timeseriesPanel({
      title: 'Error %',
      description:
        'Failed transactions (per type) and failed HTTP requests, as a percentage per interval. Should stay at 0.',
      unit: 'percent',
      min: 0,
      targets: [
        seriesTarget('A', { select: 'mean("value") * 100', measurement: METRICS.transactionFailed, where: RUN, by: 'transaction', alias: 'failed $tag_transaction' }),
        seriesTarget('B', { select: 'mean("value") * 100', measurement: METRICS.httpFailed, where: RUN, alias: 'failed requests' }),
      ],
    }),
    8,
    8,
  ],
  [
    timeseriesPanel({
      title: 'Virtual users',
      description: 'Concurrent virtual users; a knee in response time should be read against this.',
      unit: 'none',
      min: 0,
      targets: [influxql('A', vusQuery(RUN, { series: true }), { alias: 'VUs' })],
    }),
    8,
    8,
  ],
];

const apis = [
  [
    statsTable({
      title: 'Response time by API',
      description:
        `Every API call of the run (k6 tag \`name\`: method + templated path), over the whole run. The p75 ` +
        `cell turns red above ${SLOW_API_P75_MS} ms, the release reports' "slow API" line.`,
      unit: 'ms',
      fields:
        'count("value") AS "count", percentile("value", 50) AS "p50", percentile("value", 75) AS "p75", ' +
        'percentile("value", 95) AS "p95", max("value") AS "max"',
      measurement: METRICS.httpDuration,
      where: RUN,
      anyTime: true,
      by: ['name'],
      overrides: [
        { name: 'count', properties: [{ id: 'unit', value: 'none' }] },
        { name: 'p75', properties: highlightAbove(SLOW_API_P75_MS) },
        { name: 'name', properties: [{ id: 'displayName', value: 'API' }] },
      ],
      sortBy: [{ displayName: 'p75', desc: true }],
    }),
    24,
    10,
  ],
  [
    timeseriesPanel({
      title: 'Requests/s by API',
      description: `HTTP requests per second per API (k6 \`${METRICS.httpReqs}\`, tag \`name\`).`,
      unit: 'reqps',
      min: 0,
      legendCalcs: ['mean', 'max'],
      targets: [seriesTarget('A', { select: 'sum("value") * 1000 / $__interval_ms', measurement: METRICS.httpReqs, where: RUN, by: 'name' })],
    }),
    12,
    9,
  ],
  [
    statsTable({
      title: 'Errors by status and API',
      description:
        'Requests, failed requests and failure share per API and HTTP status over the run (status 0: no ' +
        'response, e.g. a timeout or refused connection).',
      unit: 'none',
      fields: 'count("value") AS "requests", sum("value") AS "failed", mean("value") * 100 AS "failed %"',
      measurement: METRICS.httpFailed,
      where: RUN,
      anyTime: true,
      by: ['name', 'status'],
      overrides: [
        { name: 'failed %', properties: [{ id: 'unit', value: 'percent' }, ...highlightAbove(0.000001)] },
        { name: 'name', properties: [{ id: 'displayName', value: 'API' }] },
      ],
      sortBy: [{ displayName: 'failed', desc: true }],
    }),
    12,
    9,
  ],
];

// module_stats and postgresql come from Telegraf, not from k6, so they carry
// no testid: these panels follow the time range, which should cover the run.
const resources = [
  [
    timeseriesPanel({
      title: 'Module CPU',
      description:
        `CPU of each FOLIO module, the gateway (okapi) and PostgreSQL, from Telegraf (\`${METRICS.moduleStats}\`). ` +
        '100 % = one core fully used. Not filtered by run: "Run window" sets the time range to the run.',
      unit: 'percent',
      min: 0,
      legendCalcs: ['mean', 'max'],
      targets: [seriesTarget('A', { select: `mean("${FIELDS.cpuPercent}")`, measurement: METRICS.moduleStats, by: 'module' })],
    }),
    12,
    9,
  ],
  [
    timeseriesPanel({
      title: 'Module memory (RSS)',
      description:
        `Resident memory of each module process or container (\`${METRICS.moduleStats}.${FIELDS.memRss}\`). Steady growth ` +
        'over a long run points at a leak.',
      unit: 'bytes',
      min: 0,
      legendCalcs: ['mean', 'max'],
      targets: [seriesTarget('A', { select: `mean("${FIELDS.memRss}")`, measurement: METRICS.moduleStats, by: 'module' })],
    }),
    12,
    9,
  ],
  [
    statsTable({
      title: 'Module CPU and memory over the time range',
      description:
        'Average and peak CPU (100 % = one core) and average RSS per module over the selected time range, ' +
        'the numbers of the release reports\' module CPU table.',
      unit: 'percent',
      fields: `mean("${FIELDS.cpuPercent}") AS "CPU avg", max("${FIELDS.cpuPercent}") AS "CPU max", mean("${FIELDS.memRss}") AS "RSS avg"`,
      measurement: METRICS.moduleStats,
      by: ['module'],
      overrides: [{ name: 'RSS avg', properties: [{ id: 'unit', value: 'bytes' }] }],
      sortBy: [{ displayName: 'CPU avg', desc: true }],
    }),
    8,
    9,
  ],
  [
    timeseriesPanel({
      title: 'PostgreSQL connections',
      description: 'Backends connected to each database (Telegraf postgresql input, `numbackends`).',
      unit: 'none',
      min: 0,
      targets: [seriesTarget('A', { select: 'mean("numbackends")', measurement: 'postgresql', where: '"db" !~ /^template/', by: 'db' })],
    }),
    8,
    9,
  ],
  [
    timeseriesPanel({
      title: 'PostgreSQL commits/s',
      description: 'Committed transactions per second per database (rate of the `xact_commit` counter).',
      unit: 'ops',
      min: 0,
      targets: [seriesTarget('A', { select: 'non_negative_derivative(max("xact_commit"), 1s)', measurement: 'postgresql', where: '"db" !~ /^template/', by: 'db' })],
    }),
    8,
    9,
  ],
];

/** Builds the dashboard (an SDK DashboardBuilder). */
export function build() {
  const dash = baseDashboard({
    uid: UID,
    title: 'FOLIO check-in/check-out',
    description:
      'One k6 run of the check-in/check-out workflow: run-level times, throughput, errors, per-API times ' +
      'and module CPU. Pick the run in "Run"; its numbers and tables need no time range, and "Run window" ' +
      'opens the time series on the run.',
  })
    .withVariable(releaseVariable())
    .withVariable(runVariable('testid', 'Run'))
    .links([
      new dashboard.DashboardLinkBuilder('Compare this run (release comparison)')
        .type(dashboard.DashboardLinkType.Link)
        .url(`/d/${comparison.UID}/?var-testid_b=$testid&var-release=$__all`)
        .tooltip('The release comparison with the selected run as B; pick A there')
        .icon('dashboard')
        .includeVars(false)
        .keepTime(false)
        .targetBlank(false)
        .asDropdown(false),
    ]);
  for (const a of runWindowAnnotations(RUN)) dash.annotation(a);
  return layout(dash, [
    { title: 'Selected run', panels: [...summary, ...window] },
    { title: 'By user count', panels: byUserCount },
    { title: 'Over time', panels: overTime },
    { title: 'APIs', panels: apis },
    { title: 'Modules and database', panels: resources },
  ]);
}

export const DASHBOARDS = [{ UID, FILE, build }, comparison];
