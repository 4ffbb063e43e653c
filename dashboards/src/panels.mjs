// Shared building blocks for folio-perf's dashboards: the InfluxQL target, the
// templated datasource, the variables and the panel kinds every dashboard uses.
// The Grafana foundation SDK has no InfluxDB query builder, so InfluxQL targets
// are the SDK's documented "custom dataquery" (an object with build()).
import { METRICS } from '../../lib/metrics.js';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';

// Every panel and target points at the `datasource` variable, never at a fixed
// uid, so the same JSON works with the provisioned datasource and any other.
export const DATASOURCE = Object.freeze({ type: 'influxdb', uid: '${datasource}' });

// The slow-API line of the release reports (an API whose p75 exceeds 100 ms): the metric contract's.
export { SLOW_API_P75_MS } from '../../lib/metrics.js';

/** An InfluxQL target in raw-query mode. */
export function influxql(refId, query, { format = 'time_series', alias } = {}) {
  const target = { refId, datasource: { ...DATASOURCE }, rawQuery: true, query, resultFormat: format };
  if (alias) target.alias = alias;
  return {
    build() {
      // The SDK asks targets to mark themselves as a dataquery variant;
      // JSON.stringify drops the function again.
      return { ...target, _implementsDataqueryVariant() {} };
    },
  };
}

/** `WHERE` clause fragment selecting one run by the given variable. */
export function runFilter(variable = 'testid') {
  return `"testid" = '$${variable}'`;
}

// ---- variables -----------------------------------------------------------

/**
 * A variable listing the values of one tag of transaction_duration.
 * Runs are single-valued on purpose: every run-level number (p95 of the run)
 * is only meaningful for one testid.
 */
export function tagValuesVariable(name, { label, tag = name, where, multi = false, includeAll = false, description }) {
  const query = `SHOW TAG VALUES FROM "${METRICS.transactionDuration}" WITH KEY = "${tag}"${where ? ` WHERE ${where}` : ''}`;
  const v = new dashboard.QueryVariableBuilder(name)
    .label(label)
    .description(description)
    .datasource({ ...DATASOURCE })
    .query(query)
    .definition(query)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.AlphabeticalDesc)
    .multi(multi)
    .includeAll(includeAll);
  if (includeAll) v.allValue('.*');
  return v;
}

/** The `release` filter: all releases by default, narrowing the run lists. */
export function releaseVariable() {
  return tagValuesVariable('release', {
    label: 'Release',
    multi: true,
    includeAll: true,
    description: 'Release label of the system under test (k6 tag `release`); narrows the run list.',
  });
}

/** A run picker, filtered by the selected releases; newest testid first. */
export function runVariable(name, label) {
  return tagValuesVariable(name, {
    label,
    tag: 'testid',
    where: `"release" =~ /^$release$/`,
    description: 'One k6 run (k6 tag `testid`): every run in the database is listed, whatever the time range.',
  });
}

// ---- panels --------------------------------------------------------------

// The SDK's setters for nested options take builders; plain option objects are
// wrapped so the option shapes stay readable here.
const built = (value) => ({ build: () => value });

function common(builder, { title, description, unit, targets, decimals }) {
  builder.title(title).description(description).unit(unit).datasource({ ...DATASOURCE });
  for (const t of targets) builder.withTarget(t);
  if (decimals !== undefined) builder.decimals(decimals);
  return builder;
}

/** A single number for the whole selected run. */
export function statPanel(opts) {
  const b = common(new stat.PanelBuilder(), opts)
    .reduceOptions(built({ calcs: ['lastNotNull'], fields: '', values: false }))
    .graphMode('none')
    .colorMode('value');
  if (opts.thresholds) b.thresholds(built(opts.thresholds));
  return b;
}

/** Series over time. */
export function timeseriesPanel(opts) {
  const b = common(new timeseries.PanelBuilder(), opts)
    .lineWidth(1)
    .fillOpacity(opts.fillOpacity ?? 0)
    .showPoints('never')
    .spanNulls(false)
    // Most panels have one series per module, API or percentile: the legend
    // names them, and the tooltip compares them at one instant.
    .legend(
      built({
        displayMode: opts.legendCalcs ? 'table' : 'list',
        placement: 'bottom',
        showLegend: true,
        calcs: opts.legendCalcs ?? [],
      }),
    )
    .tooltip(built({ mode: 'multi', sort: 'desc' }));
  if (opts.min !== undefined) b.min(opts.min);
  if (opts.axisLabel) b.axisLabel(opts.axisLabel);
  // The SLO as a red line at the budget (ms), in Grafana's own threshold style: the base step is
  // transparent so that only the line is drawn, not a coloured area.
  if (opts.sloMs) b.thresholds(built(thresholds('transparent', [opts.sloMs, 'red']))).thresholdsStyle(built({ mode: 'line' }));
  return b;
}

/** A table from InfluxQL's table format. */
export function tablePanel(opts) {
  const b = common(new table.PanelBuilder(), opts).cellHeight('sm');
  for (const o of opts.overrides ?? []) b.overrideByName(o.name, o.properties);
  for (const t of opts.transformations ?? []) b.withTransformation(t);
  if (opts.sortBy) b.sortBy(opts.sortBy.map(built));
  return b;
}

// ---- the two query shapes every dashboard repeats ---------------------------

const whereTime = (where) => `WHERE ${where ? `${where} AND ` : ''}$timeFilter`;

/**
 * WHERE of a number over one whole run: the run filter without $timeFilter, so that stat panels and
 * tables show the run whatever the dashboard's time range (runs months apart, a range left on
 * now-1h). Only queries filtered by a run variable and without GROUP BY time() may do this.
 */
export const wholeRun = (where) => `WHERE ${where}`;

/**
 * The mean per-second count of `measurement`'s samples over one whole run, leaving out the
 * seconds without any (a run's throughput while it was active). Fixed 1 s buckets on purpose: a
 * rate over the run must not depend on the panel's width, and fill(none) keeps idle seconds out.
 */
export function activeRateQuery(measurement, where) {
  return `SELECT mean("tps") FROM (SELECT count("value") AS "tps" FROM "${measurement}" ${wholeRun(where)} GROUP BY time(1s) fill(none))`;
}

/**
 * A target of one series per interval (and per value of the `by` tag):
 * SELECT select FROM measurement WHERE [where AND] $timeFilter GROUP BY time($__interval)[, by] fill(none).
 * Grafana names a series by `alias`, by default the tag's value.
 */
export function seriesTarget(refId, { select, measurement, where, by, alias = by ? `$tag_${by}` : undefined }) {
  const group = `GROUP BY time($__interval)${by ? `, "${by}"` : ''} fill(none)`;
  return influxql(refId, `SELECT ${select} FROM "${measurement}" ${whereTime(where)} ${group}`, { alias });
}

/**
 * Virtual users of a run split over several k6 runners (RUNNERS=N, k6-operator pods): each runner
 * writes its own `vus` with its `instance` tag, so the run's count is the sum of the runners'
 * (a plain max would show one runner's share). A run without runners has one empty instance.
 */
export function vusQuery(where, { series = false } = {}) {
  const cond = series ? whereTime(where) : wholeRun(where);
  const inner = `SELECT max("value") AS "value" FROM "${METRICS.vus}" ${cond} GROUP BY ${series ? 'time($__interval), ' : ''}"instance"`;
  return `SELECT sum("value") FROM (${inner})${series ? ' GROUP BY time($__interval) fill(none)' : ''}`;
}

/**
 * A table of statistics over the whole time range, one row per combination of the `by` tags (an
 * API, a template and phase, a module): the release reports' per-API and per-template tables.
 * `fields` are the SELECT list; `overrides` and `sortBy` as tablePanel's; the Time column is hidden.
 * `anyTime`: over the whole run whatever the time range (`where` must select a run, see wholeRun).
 */
export function statsTable({ fields, measurement, where, by, anyTime = false, ...opts }) {
  const groupBy = by.map((t) => `"${t}"`).join(', ');
  const cond = anyTime ? wholeRun(where) : whereTime(where);
  return tablePanel({
    ...opts,
    targets: [influxql('A', `SELECT ${fields} FROM "${measurement}" ${cond} GROUP BY ${groupBy}`, { format: 'table' })],
    transformations: [{ id: 'organize', options: { excludeByName: { Time: true } } }],
  });
}

/** Table cell override: colour the cell red when the value passes `limit`. */
export function highlightAbove(limit) {
  return [
    { id: 'custom.cellOptions', value: { type: 'color-background', mode: 'basic' } },
    {
      id: 'thresholds',
      value: { mode: 'absolute', steps: [{ color: 'transparent', value: null }, { color: 'red', value: limit }] },
    },
  ];
}

/** Thresholds object (absolute), first step is the base colour. */
export function thresholds(base, ...steps) {
  return {
    mode: 'absolute',
    steps: [{ color: base, value: null }, ...steps.map(([value, color]) => ({ value, color }))],
  };
}

/**
 * Grafana transformations that add `label` = (b / a − 1) × 100 to a merged
 * table: calculateField's binary mode takes one operator per step, so the
 * percentage needs three steps; the helper columns are hidden afterwards.
 */
export function deltaPercent(a, b, label) {
  const ratio = `${label} ratio`;
  const pct = `${label} pct`;
  const binary = (left, operator, right, alias) => ({
    id: 'calculateField',
    options: { mode: 'binary', binary: { left, operator, right }, alias, replaceFields: false },
  });
  return {
    transformations: [binary(b, '/', a, ratio), binary(ratio, '*', '100', pct), binary(pct, '-', '100', label)],
    hidden: [ratio, pct],
  };
}

// ---- layout --------------------------------------------------------------

/**
 * Places panels left to right in rows of 24 grid units, with explicit gridPos
 * and ids so that the generated JSON is stable from one generation to the next.
 * `rows` is a list of { title, panels: [[builder, width, height], ...] }.
 */
export function layout(dash, rows) {
  let y = 0;
  let id = 1;
  for (const row of rows) {
    dash.withRow(new dashboard.RowBuilder(row.title).id(id++).gridPos({ x: 0, y, w: 24, h: 1 }));
    y += 1;
    let x = 0;
    let rowHeight = 0;
    for (const [panel, w, h] of row.panels) {
      if (x + w > 24) {
        y += rowHeight;
        x = 0;
        rowHeight = 0;
      }
      dash.withPanel(panel.id(id++).gridPos({ x, y, w, h }));
      x += w;
      rowHeight = Math.max(rowHeight, h);
    }
    y += rowHeight;
  }
  return dash;
}

/** The dashboard frame shared by all: tags, time, datasource variable, links. */
export function baseDashboard({ uid, title, description, time = { from: 'now-1h', to: 'now' } }) {
  return new dashboard.DashboardBuilder(title)
    .uid(uid)
    .description(description)
    .tags(['folio', 'folio-perf', 'k6'])
    // Provisioned from files: edits in the UI would be lost on the next
    // provisioning pass, so the dashboard says so (dashboard-linter's rule).
    .readonly()
    .timezone('utc')
    .time(time)
    .refresh('')
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .withVariable(
      new dashboard.DatasourceVariableBuilder('datasource')
        .label('Data source')
        .type('influxdb')
        .description(`InfluxDB 1.x database with k6 samples and Telegraf ${METRICS.moduleStats}`),
    );
}

/**
 * The dashboard JSON as written to disk. Grafana re-queries datasource
 * variables only when `refresh` says so; the SDK's builder has no setter for it.
 */
export function toJSON(dash) {
  const json = dash.build();
  for (const v of json.templating?.list ?? []) {
    if (v.type === 'datasource') v.refresh = 2;
  }
  // The SDK writes `annotations: {}` (or only ours); Grafana's dashboard model expects a list that
  // starts with its built-in annotation query, as in a dashboard saved by Grafana itself.
  const own = Array.isArray(json.annotations?.list) ? json.annotations.list : [];
  json.annotations = {
    list: [
      {
        builtIn: 1,
        datasource: { type: 'grafana', uid: '-- Grafana --' },
        enable: true,
        hide: true,
        iconColor: 'rgba(0, 211, 255, 1)',
        name: 'Annotations & Alerts',
        type: 'dashboard',
      },
      ...own,
    ],
  };
  // The SDK defaults `placement` to "inControlsMenu", which tucks the annotation toggles and the
  // links away in the controls menu of newer Grafanas; without it they sit above the panels.
  for (const x of [...own, ...(json.links ?? [])]) {
    delete x.placement;
    if (x.builtIn === 0) delete x.builtIn;
  }
  return json;
}
