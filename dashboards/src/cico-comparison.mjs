// Dashboard "FOLIO release comparison" of the check-in/check-out workflow (listed
// by cico.mjs): two runs side by side in the shape of the release reports'
// comparison tables — check-in/check-out times per user count and the per-API
// p75, each with a Delta % column (B against A).
import { METRICS } from '../../lib/metrics.js';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { openRunUrl, runsTable } from './runs.mjs';
import { sloMs } from './slo.mjs';
import {
  SLOW_API_P75_MS,
  baseDashboard,
  deltaPercent,
  highlightAbove,
  influxql,
  layout,
  releaseVariable,
  runFilter,
  runVariable,
  statPanel,
  tablePanel,
  thresholds,
  wholeRun,
} from './panels.mjs';

export const UID = 'folio-release-comparison';
export const FILE = 'folio-release-comparison.json';
// The single-run dashboard each run opens in (cico.mjs, which lists this module: named here, not
// imported, to keep the import one-way).
const RUN_UID = 'folio-cico';

const RUNS = [
  { refId: 'A', variable: 'testid_a', label: 'A' },
  { refId: 'B', variable: 'testid_b', label: 'B' },
];

// Delta % is positive when B is slower than A: red means a regression.
const DELTA_COLOURS = [
  { id: 'unit', value: 'percent' },
  { id: 'decimals', value: 1 },
  { id: 'custom.cellOptions', value: { type: 'color-text' } },
  {
    id: 'thresholds',
    value: {
      mode: 'absolute',
      steps: [
        { color: 'green', value: null },
        { color: 'text', value: -5 },
        { color: 'red', value: 5 },
      ],
    },
  },
];

/**
 * A table built from one query per run, merged on the grouping columns (the
 * aggregates carry the run's letter), plus a Delta % column per statistic.
 */
function comparisonTable({ title, description, stats, measurement, where, groupBy, order, extraOverrides = [] }) {
  const targets = RUNS.map(({ refId, variable, label }) => {
    const select = stats.map(([fn, stat]) => `${fn} AS "${label} ${stat}"`).join(', ');
    // No $timeFilter: each run is compared whole, whatever the time range (releases months apart).
    const cond = wholeRun([runFilter(variable), ...(where ? [where] : [])].join(' AND '));
    return influxql(refId, `SELECT ${select} FROM "${measurement}" ${cond} GROUP BY ${groupBy}`, {
      format: 'table',
    });
  });
  // Without a time range InfluxDB gives both queries' rows the same Time (the epoch), so `merge`
  // joins rows on (Time, group tags).
  const transformations = [{ id: 'merge', options: {} }];
  const hidden = { Time: true };
  const indexByName = {};
  let col = 0;
  for (const g of order) indexByName[g] = col++;
  const overrides = [];
  for (const [, stat] of stats) {
    const delta = deltaPercent(`A ${stat}`, `B ${stat}`, `Δ ${stat} %`);
    transformations.push(...delta.transformations);
    for (const h of delta.hidden) hidden[h] = true;
    indexByName[`A ${stat}`] = col++;
    indexByName[`B ${stat}`] = col++;
    indexByName[`Δ ${stat} %`] = col++;
    overrides.push({ name: `Δ ${stat} %`, properties: DELTA_COLOURS });
  }
  transformations.push({ id: 'organize', options: { excludeByName: hidden, indexByName } });
  return tablePanel({
    title,
    description,
    unit: 'ms',
    targets,
    transformations,
    overrides: [...overrides, ...extraOverrides],
  });
}

const responseTimes = comparisonTable({
  title: 'Check-in / check-out by user count',
  description:
    'Average, p50, p75 and p95 of check-in and check-out per user count (k6 tag `vus`), run A against run B, ' +
    'each over its whole run. Delta % = (B / A − 1) × 100: positive means B is slower.',
  measurement: METRICS.transactionDuration,
  stats: [
    ['mean("value")', 'avg'],
    ['percentile("value", 50)', 'p50'],
    ['percentile("value", 75)', 'p75'],
    ['percentile("value", 95)', 'p95'],
  ],
  groupBy: '"vus", "transaction"',
  order: ['vus', 'transaction'],
  extraOverrides: [{ name: 'vus', properties: [{ id: 'displayName', value: 'Users' }, { id: 'unit', value: 'none' }] }],
});

const apiP75 = comparisonTable({
  title: 'API p75, A vs B',
  description:
    `75th percentile of every API (k6 tag \`name\`) in run A and run B with Delta %. A p75 above ` +
    `${SLOW_API_P75_MS} ms is red: the release reports' slow-API list.`,
  measurement: METRICS.httpDuration,
  stats: [['percentile("value", 75)', 'p75']],
  groupBy: '"name"',
  order: ['name'],
  extraOverrides: [
    { name: 'A p75', properties: highlightAbove(SLOW_API_P75_MS) },
    { name: 'B p75', properties: highlightAbove(SLOW_API_P75_MS) },
    { name: 'name', properties: [{ id: 'displayName', value: 'API' }] },
  ],
});

function p95Stat(transaction) {
  const name = transaction === 'check-out' ? 'Check-out' : 'Check-in';
  const slo = sloMs('cico', 'transactions', transaction);
  return statPanel({
    title: `${name} p95, A and B`,
    description:
      `95th percentile of ${transaction} over each whole run (all user counts together); red above its SLO ` +
      `in thresholds.json (${slo} ms).`,
    unit: 'ms',
    thresholds: thresholds('green', [slo, 'red']),
    targets: RUNS.map(({ refId, variable, label }) =>
      influxql(
        refId,
        `SELECT percentile("value", 95) AS "${label}" FROM "${METRICS.transactionDuration}" ` +
          wholeRun(`${runFilter(variable)} AND "transaction" = '${transaction}'`),
      ),
    ),
  });
}

// Both runs' windows, each a link to the single-run dashboard on that run's time range.
const runs = runsTable({
  title: 'Runs A and B',
  description:
    'Each run\'s first and last sample (k6 `vus`). Click a run for the FOLIO check-in/check-out dashboard on ' +
    'that run\'s time range. The numbers on this dashboard are over each whole run, whatever the time range.',
  where: `(${RUNS.map(({ variable }) => runFilter(variable)).join(' OR ')})`,
  links: [{ title: 'Open this run (FOLIO check-in/check-out, on its time range)', url: openRunUrl(RUN_UID) }],
});

/** Builds the dashboard (an SDK DashboardBuilder). */
export function build() {
  const dash = baseDashboard({
    uid: UID,
    title: 'FOLIO release comparison',
    description:
      'Two k6 runs of the check-in/check-out workflow side by side, usually the previous release (A) and ' +
      'the candidate (B). Every number is over each whole run: the time range does not matter.',
    time: { from: 'now-7d', to: 'now' },
  })
    .withVariable(releaseVariable())
    .withVariable(runVariable('testid_a', 'Run A (baseline)'))
    .withVariable(runVariable('testid_b', 'Run B'));
  dash.links(
    RUNS.map(({ variable, label }) =>
      new dashboard.DashboardLinkBuilder(`Run ${label} (FOLIO check-in/check-out)`)
        .type(dashboard.DashboardLinkType.Link)
        .url(`/d/${RUN_UID}/?var-testid=$${variable}&var-release=$__all`)
        .tooltip(`The single-run dashboard on run ${label}; "Run window" there opens its time range`)
        .icon('dashboard')
        .includeVars(false)
        .keepTime(false)
        .targetBlank(false)
        .asDropdown(false),
    ),
  );
  return layout(dash, [
    { title: 'Summary', panels: [[p95Stat('check-out'), 8, 4], [p95Stat('check-in'), 8, 4], [runs, 8, 4]] },
    { title: 'Response times', panels: [[responseTimes, 24, 10]] },
    { title: 'APIs', panels: [[apiP75, 24, 12]] },
  ]);
}
