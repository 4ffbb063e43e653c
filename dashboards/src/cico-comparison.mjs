// Dashboard "FOLIO release comparison" of the check-in/check-out workflow (listed
// by cico.mjs): two runs side by side in the shape of the release reports'
// comparison tables — check-in/check-out times per user count and the per-API
// p75, each with a Delta % column (B against A).
import { METRICS } from '../../lib/metrics.js';
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
} from './panels.mjs';

export const UID = 'folio-release-comparison';
export const FILE = 'folio-release-comparison.json';

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
    const cond = [runFilter(variable), ...(where ? [where] : []), '$timeFilter'].join(' AND ');
    return influxql(refId, `SELECT ${select} FROM "${measurement}" WHERE ${cond} GROUP BY ${groupBy}`, {
      format: 'table',
    });
  });
  // Both queries share the time range, so InfluxDB gives both the same Time
  // value and `merge` joins rows on (Time, group tags).
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
  return statPanel({
    title: `${name} p95, A and B`,
    description: `95th percentile of ${transaction} over each whole run (all user counts together).`,
    unit: 'ms',
    targets: RUNS.map(({ refId, variable, label }) =>
      influxql(
        refId,
        `SELECT percentile("value", 95) AS "${label}" FROM "${METRICS.transactionDuration}" WHERE ${runFilter(variable)} ` +
          `AND "transaction" = '${transaction}' AND $timeFilter`,
      ),
    ),
  });
}

/** Builds the dashboard (an SDK DashboardBuilder). */
export function build() {
  const dash = baseDashboard({
    uid: UID,
    title: 'FOLIO release comparison',
    description:
      'Two k6 runs of the check-in/check-out workflow side by side, usually the previous release (A) and ' +
      'the candidate (B). The time range must cover both runs.',
    time: { from: 'now-7d', to: 'now' },
  })
    .withVariable(releaseVariable())
    .withVariable(runVariable('testid_a', 'Run A (baseline)'))
    .withVariable(runVariable('testid_b', 'Run B'));
  return layout(dash, [
    { title: 'Summary', panels: [[p95Stat('check-out'), 12, 4], [p95Stat('check-in'), 12, 4]] },
    { title: 'Response times', panels: [[responseTimes, 24, 10]] },
    { title: 'APIs', panels: [[apiP75, 24, 12]] },
  ]);
}
