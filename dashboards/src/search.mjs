// The mod-search workflow's dashboard (DASHBOARDS, found by dashboards/src/index.mjs), "FOLIO
// mod-search": one run of scripts/mod-search.js as the Lotus
// mod-search report looked at it — response time per query group and per
// template, throughput, errors, the background reindex of the other tenant,
// and mod-search's and OpenSearch's CPU and memory side by side.
import { METRICS, SEARCH_SLOW_MS, SEARCH_KINDS, FIELDS } from '../../lib/metrics.js';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { openRunUrl, runWindowAnnotations, runsTable } from './runs.mjs';
import { sloMs } from './slo.mjs';
import {
  DATASOURCE,
  activeRateQuery,
  baseDashboard,
  highlightAbove,
  influxql,
  layout,
  seriesTarget,
  runFilter,
  statPanel,
  statsTable,
  thresholds,
  timeseriesPanel,
  vusQuery,
  wholeRun,
} from './panels.mjs';

const { httpDuration, httpFailed, reindexDuration, reindexRunning } = METRICS;

export const UID = 'folio-mod-search';
export const FILE = 'folio-mod-search.json';

// The report counts requests over 700 ms (the metric contract's line); its
// tables colour nothing, the dashboard marks p95 cells above that line.
const SLOW_MS = SEARCH_SLOW_MS;

const RUN = runFilter('testid');
// Search requests carry the `group` tag (the report's query fragment); the
// logins and reindex calls of the same run do not.
const SEARCH = `${RUN} AND "group" =~ /^$group$/`;
// mod-search and its OpenSearch node in module_stats.
const SEARCH_MODULES = `"module" =~ /^(mod-search|opensearch)$/`;

/** Release labels of search runs (all by default), narrowing the run list. */
function searchReleaseVariable() {
  const query = `SHOW TAG VALUES FROM "${httpDuration}" WITH KEY = "release" WHERE "workflow" = 'search'`;
  return new dashboard.QueryVariableBuilder('release')
    .label('Release')
    .description('Release label of the system under test (k6 tag `release`); narrows the run list.')
    .datasource({ ...DATASOURCE })
    .query(query)
    .definition(query)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.AlphabeticalDesc)
    .multi(true)
    .includeAll(true)
    .allValue('.*');
}

/** Runs of the search workflow, newest first, narrowed by release. */
function searchRunVariable() {
  const query =
    `SHOW TAG VALUES FROM "${httpDuration}" WITH KEY = "testid" ` +
    `WHERE "workflow" = 'search' AND "release" =~ /^$release$/`;
  return new dashboard.QueryVariableBuilder('testid')
    .label('Run')
    .description('One k6 run of scripts/mod-search.js (k6 tag `testid`): every search run is listed, whatever the time range.')
    .datasource({ ...DATASOURCE })
    .query(query)
    .definition(query)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.AlphabeticalDesc)
    .multi(false)
    .includeAll(false);
}

/** The query groups of the selected run (all by default). */
function groupVariable() {
  const query = `SHOW TAG VALUES FROM "${httpDuration}" WITH KEY = "group" WHERE ${RUN}`;
  return new dashboard.QueryVariableBuilder('group')
    .label('Group')
    .description('Query group of the mod-search report (k6 tag `group`: authority, boolean, contributors, filter, keyword, subjects, title).')
    .datasource({ ...DATASOURCE })
    .query(query)
    .definition(query)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .allValue('.+');
}

const summary = [
  [
    statPanel({
      title: 'Search p95',
      description:
        '95th percentile of every search request of the selected run and groups (both phases), over the whole ' +
        'run rather than per interval.',
      unit: 'ms',
      thresholds: thresholds('green', [SLOW_MS, 'red']),
      targets: [influxql('A', `SELECT percentile("value", 95) FROM "${httpDuration}" ${wholeRun(SEARCH)}`)],
    }),
    4,
    4,
  ],
  [
    statPanel({
      title: 'Search requests/s',
      description:
        'Search requests per second while the run was active: the mean of per-second counts, ignoring seconds ' +
        'without any request (the report\'s throughput).',
      unit: 'reqps',
      decimals: 2,
      targets: [
        influxql('A', activeRateQuery(httpDuration, SEARCH)),
      ],
    }),
    4,
    4,
  ],
  [
    statPanel({
      title: `Requests over ${SLOW_MS} ms`,
      description: `Search requests that took longer than ${SLOW_MS} ms (the mod-search report's slow-request count).`,
      unit: 'none',
      targets: [
        influxql('A', `SELECT count("value") FROM "${httpDuration}" ${wholeRun(`${SEARCH} AND "value" > ${SLOW_MS}`)}`),
      ],
      // InfluxQL returns no series, not 0, when no request was that slow.
    }).noValue('0'),
    4,
    4,
  ],
  [
    statPanel({
      title: 'Failed search requests',
      description: `Share of search requests k6 counted as failed (\`${METRICS.httpFailed}\`: status outside 200–399 or no response).`,
      unit: 'percent',
      decimals: 2,
      thresholds: thresholds('green', [1, 'red']),
      targets: [influxql('A', `SELECT mean("value") * 100 FROM "${httpFailed}" ${wholeRun(SEARCH)}`)],
    }),
    4,
    4,
  ],
  [
    statPanel({
      title: 'Reindex duration',
      description:
        `How long the background reindex of the other tenant took (k6 Trend \`${METRICS.reindexDuration}\`, one sample ` +
        'when it ends, whatever its outcome). Empty when the run had no reindex phase.',
      unit: 'ms',
      targets: [influxql('A', `SELECT max("value") FROM "${reindexDuration}" ${wholeRun(RUN)}`)],
    }),
    4,
    4,
  ],
  [
    statPanel({
      title: 'Virtual users',
      description: 'Highest number of concurrent virtual users searching in the run.',
      unit: 'none',
      targets: [influxql('A', vusQuery(RUN))],
    }),
    4,
    4,
  ],
];

const overTime = [
  [
    timeseriesPanel({
      title: 'p95 by group',
      description:
        'Per-interval 95th percentile of the search requests of each query group. The reindex window is in the ' +
        '"Reindex running" panel below, on the same time axis.',
      unit: 'ms',
      min: 0,
      legendCalcs: ['mean', 'max'],
      targets: [seriesTarget('A', { select: 'percentile("value", 95)', measurement: httpDuration, where: SEARCH, by: 'group' })],
    }),
    12,
    8,
  ],
  [
    timeseriesPanel({
      title: 'Requests/s by group',
      description: 'Search requests per second per query group.',
      unit: 'reqps',
      min: 0,
      legendCalcs: ['mean'],
      targets: [seriesTarget('A', { select: 'count("value") * 1000 / $__interval_ms', measurement: httpDuration, where: SEARCH, by: 'group' })],
    }),
    12,
    8,
  ],
  [
    timeseriesPanel({
      title: 'Reindex running',
      description:
        'The background reindex window: 1 while the reindex of the other tenant runs, 0 once it is done (k6 ' +
        `Gauge \`${METRICS.reindexRunning}\`, sampled at each progress poll), per reindexed tenant. Read the response ` +
        'times above against it.',
      unit: 'none',
      min: 0,
      fillOpacity: 30,
      targets: [seriesTarget('A', { select: 'max("value")', measurement: reindexRunning, where: RUN, by: 'tenant', alias: 'reindex $tag_tenant' })],
    }),
    12,
    6,
  ],
  [
    timeseriesPanel({
      title: 'Error %',
      description: 'Failed search requests per interval, per query group. Should stay at 0.',
      unit: 'percent',
      min: 0,
      targets: [seriesTarget('A', { select: 'mean("value") * 100', measurement: httpFailed, where: SEARCH, by: 'group', alias: 'failed $tag_group' })],
    }),
    12,
    6,
  ],
];

// thresholds.json budgets search by kind of query (regular, wildcard, wildcard-prefix), not by
// group: one panel per kind with a budget, its groups' p95 against that kind's SLO line.
const byKind = SEARCH_KINDS.filter((kind) => sloMs('search', 'kinds', kind)).map((kind) => {
  const slo = sloMs('search', 'kinds', kind);
  return [
    timeseriesPanel({
      title: `p95 by group, ${kind} queries`,
      description:
        `Per-interval 95th percentile of the ${kind} search templates (k6 tag \`kind\`) of each query group. ` +
        `The red line is the ${kind} p95 SLO of thresholds.json (${slo} ms).`,
      unit: 'ms',
      min: 0,
      sloMs: slo,
      legendCalcs: ['mean', 'max'],
      targets: [seriesTarget('A', { select: 'percentile("value", 95)', measurement: httpDuration, where: `${SEARCH} AND "kind" = '${kind}'`, by: 'group' })],
    }),
    8,
    8,
  ];
});

// count, average and p95 per pair of tags over the whole run
const COUNT_AVG_P95 = 'count("value") AS "total", mean("value") AS "avg", percentile("value", 95) AS "p95"';

const templates = [
  [
    statsTable({
      title: 'Response time by template',
      description:
        'Every search template of the run (k6 tag `name`: the report\'s label) per phase (baseline, or under ' +
        `the other tenant's reindex), over the whole run: the report's per-template table. p95 turns red above ${SLOW_MS} ms.`,
      unit: 'ms',
      fields:
        `count("value") AS "total", min("value") AS "min", percentile("value", 50) AS "p50", ` +
        `percentile("value", 75) AS "p75", percentile("value", 95) AS "p95", percentile("value", 99) AS "p99", ` +
        `max("value") AS "max", mean("value") AS "avg"`,
      measurement: httpDuration,
      where: SEARCH,
      anyTime: true,
      by: ['name', 'phase'],
      overrides: [
        { name: 'total', properties: [{ id: 'unit', value: 'none' }] },
        { name: 'p95', properties: highlightAbove(SLOW_MS) },
        { name: 'name', properties: [{ id: 'displayName', value: 'template' }] },
      ],
      sortBy: [{ displayName: 'p95', desc: true }],
    }),
    24,
    12,
  ],
  [
    statsTable({
      title: 'Average by kind and phase',
      description:
        'Average and p95 per query kind (regular, wildcard `w*`, wildcard prefix `*w`/`*w*`) in each phase: ' +
        'the report\'s wildcard and wildcard-prefix group averages, and the baseline vs under-reindex comparison.',
      unit: 'ms',
      fields: COUNT_AVG_P95,
      measurement: httpDuration,
      where: SEARCH,
      anyTime: true,
      by: ['kind', 'phase'],
      overrides: [{ name: 'total', properties: [{ id: 'unit', value: 'none' }] }],
      sortBy: [{ displayName: 'kind', desc: false }],
    }),
    12,
    7,
  ],
  [
    statsTable({
      title: 'By group and phase',
      description: 'Requests, average and p95 per query group in each phase, over the whole run.',
      unit: 'ms',
      fields: COUNT_AVG_P95,
      measurement: httpDuration,
      where: SEARCH,
      anyTime: true,
      by: ['group', 'phase'],
      overrides: [{ name: 'total', properties: [{ id: 'unit', value: 'none' }] }],
      sortBy: [{ displayName: 'group', desc: false }],
    }),
    12,
    7,
  ],
];

// module_stats and opensearch come from Telegraf, not from k6, so they carry
// no testid: these panels follow the time range, which should cover the run.
const resources = [
  [
    timeseriesPanel({
      title: 'mod-search and OpenSearch CPU',
      description:
        `CPU of the mod-search module and of its OpenSearch node side by side (Telegraf \`${METRICS.moduleStats}\`). 100 % = ` +
        'one core fully used. Not filtered by run: "Run window" sets the time range to the run.',
      unit: 'percent',
      min: 0,
      legendCalcs: ['mean', 'max'],
      targets: [seriesTarget('A', { select: `mean("${FIELDS.cpuPercent}")`, measurement: METRICS.moduleStats, where: SEARCH_MODULES, by: 'module' })],
    }),
    12,
    8,
  ],
  [
    timeseriesPanel({
      title: 'mod-search and OpenSearch memory (RSS)',
      description:
        `Resident memory of the mod-search module and of the OpenSearch node (\`${METRICS.moduleStats}.${FIELDS.memRss}\`); ` +
        'OpenSearch\'s includes its fixed JVM heap.',
      unit: 'bytes',
      min: 0,
      legendCalcs: ['mean', 'max'],
      targets: [seriesTarget('A', { select: `mean("${FIELDS.memRss}")`, measurement: METRICS.moduleStats, where: SEARCH_MODULES, by: 'module' })],
    }),
    12,
    8,
  ],
  [
    timeseriesPanel({
      title: 'OpenSearch indexing and search rates',
      description:
        'Documents indexed per second (the reindex at work) and search queries per second (counted per shard ' +
        'by OpenSearch), from the node\'s running totals in the Telegraf measurement `opensearch`.',
      unit: 'ops',
      min: 0,
      legendCalcs: ['mean', 'max'],
      targets: [
        seriesTarget('A', { select: 'non_negative_derivative(max("indexing_index_total"), 1s)', measurement: 'opensearch', alias: 'documents indexed/s' }),
        seriesTarget('B', { select: 'non_negative_derivative(max("search_query_total"), 1s)', measurement: 'opensearch', alias: 'search queries/s' }),
      ],
    }),
    12,
    8,
  ],
  [
    timeseriesPanel({
      title: 'OpenSearch documents',
      description: 'Documents held by the OpenSearch node across its indexes (all tenants), from `opensearch.docs_count`.',
      unit: 'none',
      min: 0,
      targets: [seriesTarget('A', { select: 'last("docs_count")', measurement: 'opensearch', alias: 'documents' })],
    }),
    12,
    8,
  ],
];

/** Builds the dashboard (an SDK DashboardBuilder). */
export function build() {
  const dash = baseDashboard({
    uid: UID,
    title: 'FOLIO mod-search',
    description:
      'One k6 run of the mod-search workflow: search response time per group and template, throughput and ' +
      'errors, the background reindex window, mod-search and OpenSearch CPU and memory. Pick the run in "Run"; ' +
      'its numbers and tables need no time range, and "Run window" opens the time series on the run.',
  })
    .withVariable(searchReleaseVariable())
    .withVariable(searchRunVariable())
    .withVariable(groupVariable());
  for (const a of runWindowAnnotations(RUN)) dash.annotation(a);
  const window = runsTable({
    title: 'Run window',
    description:
      'The selected run\'s first and last sample (k6 `vus`). Click the run for this dashboard on its time range ' +
      '(the time series and module panels follow the range; the numbers above do not need it).',
    where: RUN,
    links: [{ title: 'Open this run on its time range', url: openRunUrl(UID) }],
  });
  return layout(dash, [
    { title: 'Selected run', panels: [...summary, [window, 24, 4]] },
    { title: 'Against the SLOs', panels: byKind },
    { title: 'Over time', panels: overTime },
    { title: 'Templates', panels: templates },
    { title: 'mod-search and OpenSearch', panels: resources },
  ]);
}

export const DASHBOARDS = [{ UID, FILE, build }];
