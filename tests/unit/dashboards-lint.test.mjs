// Structural checks on the committed dashboards, modelled on
// grafana/dashboard-linter's rules (grafana/dashboard-linter : lint/rules.go) plus folio-perf's
// own: the metric contract (docs/native-stack.md) and InfluxQL that Grafana can scale.
// Each check returns the list of findings so a failure names every offender.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { dashboards, OUT_DIR } from '../../dashboards/src/index.mjs';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dashboards', OUT_DIR);
// Every workflow's dashboards, from the registry (tools/workflows.mjs): a new workflow's are linted too.
const FILES = (await dashboards()).map((d) => d.FILE);
const load = (f) => JSON.parse(readFileSync(join(dir, f), 'utf8'));

// Panel types dashboard-linter checks for title/description/unit.
const DATA_PANELS = new Set(['stat', 'singlestat', 'graph', 'table', 'table-old', 'timeseries', 'gauge', 'bargauge']);
// Grafana unit ids used here (a subset of Grafana's catalogue).
const UNITS = new Set(['ms', 's', 'percent', 'percentunit', 'none', 'short', 'bytes', 'decbytes', 'reqps', 'ops']);
// The metric contract: measurement → fields panels may read.
const CONTRACT = {
  transaction_duration: ['value'],
  transaction_failed: ['value'],
  http_req_duration: ['value'],
  http_reqs: ['value'],
  http_req_failed: ['value'],
  vus: ['value'],
  module_stats: ['cpu_percent', 'mem_rss_bytes'],
  postgresql: ['numbackends', 'xact_commit', 'xact_rollback', 'blks_read', 'blks_hit'],
  // the search workflow's background reindex (k6) and OpenSearch's counters (Telegraf, telegraf/native.conf)
  reindex_running: ['value'],
  reindex_duration: ['value'],
  opensearch: ['indexing_index_total', 'indexing_index_time_in_millis', 'search_query_total', 'search_query_time_in_millis',
    'search_fetch_total', 'docs_count', 'store_size_in_bytes', 'refresh_total', 'merges_total'],
};
// Measurements written by k6 carry testid; Telegraf's do not.
const K6_MEASUREMENTS = new Set(['transaction_duration', 'transaction_failed', 'http_req_duration', 'http_reqs', 'http_req_failed', 'vus', 'reindex_running', 'reindex_duration']);

// A query selects runs by a run variable: `"testid" = '$testid'` (or the comparison's A and B).
const RUN_FILTER = /"testid"\s*=\s*'\$testid(_a|_b)?'/;

const dataPanels = (d) => d.panels.filter((p) => p.type !== 'row');
const targets = (d) => dataPanels(d).flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p, t })));
const isDsRef = (uid) => uid === '${datasource}' || uid === '$datasource';

/** The outer query with parenthesised subqueries removed. */
function outer(query) {
  let s = query;
  let prev;
  do {
    prev = s;
    s = s.replace(/\(\s*SELECT[^()]*(\([^()]*\)[^()]*)*\)/gi, '(<subquery>)');
  } while (s !== prev);
  return s;
}

export const rules = {
  'template-datasource-rule': (d) => {
    const v = d.templating.list.find((x) => x.name === 'datasource');
    if (!v) return ['no variable named "datasource"'];
    const f = [];
    if (v.type !== 'datasource') f.push(`datasource variable has type ${v.type}`);
    if (v.query !== 'influxdb') f.push(`datasource variable lists "${v.query}" datasources, not influxdb`);
    if (v.label !== 'Data source') f.push(`datasource variable label is "${v.label}", want "Data source"`);
    return f;
  },
  'template-on-time-change-reload-rule': (d) =>
    d.templating.list
      .filter((v) => ['datasource', 'query'].includes(v.type) && v.refresh !== 2)
      .map((v) => `variable ${v.name} has refresh ${v.refresh}, want 2 (on time range change)`),
  'template-datasource-use-rule': (d) =>
    d.templating.list
      .filter((v) => v.type === 'query' && !isDsRef(v.datasource?.uid))
      .map((v) => `variable ${v.name} does not query through $datasource`),
  'panel-datasource-rule': (d) => [
    ...dataPanels(d)
      .filter((p) => !isDsRef(p.datasource?.uid))
      .map((p) => `panel "${p.title}" uses datasource ${JSON.stringify(p.datasource)}`),
    ...targets(d)
      .filter(({ t }) => t.datasource && !isDsRef(t.datasource.uid))
      .map(({ panel, t }) => `panel "${panel.title}" target ${t.refId} uses datasource ${t.datasource.uid}`),
  ],
  'panel-title-description-rule': (d) =>
    dataPanels(d)
      .filter((p) => DATA_PANELS.has(p.type) && (!p.title?.trim() || !p.description?.trim()))
      .map((p) => `panel ${p.id} "${p.title ?? ''}" lacks a title or description`),
  'panel-units-rule': (d) =>
    dataPanels(d)
      .filter((p) => DATA_PANELS.has(p.type) && !UNITS.has(p.fieldConfig?.defaults?.unit))
      .map((p) => `panel "${p.title}" has unit ${p.fieldConfig?.defaults?.unit}`),
  'panel-no-targets-rule': (d) =>
    dataPanels(d)
      .filter((p) => !(p.targets?.length > 0))
      .map((p) => `panel "${p.title}" has no targets`),
  'uneditable-dashboard': (d) => (d.editable === false ? [] : ['dashboard is editable; provisioned dashboards should not be']),
  'dashboard-shape-rule': (d) => {
    const f = [];
    if (!Array.isArray(d.annotations?.list)) f.push('annotations.list is not a list');
    if (!Array.isArray(d.templating?.list)) f.push('templating.list is not a list');
    if (!(d.schemaVersion >= 36)) f.push(`schemaVersion ${d.schemaVersion} predates the datasource-uid references used here`);
    if (!d.title?.trim()) f.push('no title');
    return f;
  },
  'timeseries-legend-rule': (d) =>
    dataPanels(d)
      .filter((p) => p.type === 'timeseries' && p.options?.legend?.showLegend !== true)
      .map((p) => `panel "${p.title}" hides its legend: its series cannot be told apart`),
  'stable-uid-rule': (d) => (/^[a-z0-9-]{1,40}$/.test(d.uid ?? '') ? [] : [`uid "${d.uid}" is missing or not a stable slug`]),
  'panel-id-layout-rule': (d) => {
    const f = [];
    const ids = new Set();
    for (const p of d.panels) {
      if (ids.has(p.id)) f.push(`panel id ${p.id} is used twice`);
      ids.add(p.id);
      const g = p.gridPos;
      if (!g || g.x < 0 || g.w < 1 || g.x + g.w > 24 || g.h < 1) f.push(`panel "${p.title}" has bad gridPos ${JSON.stringify(g)}`);
    }
    // No two panels may overlap.
    const cells = new Map();
    for (const p of d.panels) {
      const g = p.gridPos;
      for (let x = g.x; x < g.x + g.w; x++) {
        for (let y = g.y; y < g.y + g.h; y++) {
          const k = `${x},${y}`;
          if (cells.has(k)) f.push(`panels "${cells.get(k)}" and "${p.title}" overlap at ${k}`);
          cells.set(k, p.title);
        }
      }
    }
    return [...new Set(f)];
  },
  'target-influxql-rule': (d) => {
    const f = [];
    for (const { panel, t } of targets(d)) {
      const where = `panel "${panel.title}" ${t.refId}`;
      const q = t.query ?? '';
      if (t.rawQuery !== true || !q) f.push(`${where}: not a raw InfluxQL query`);
      // Without $timeFilter only a number over whole runs: filtered by a run variable and not a
      // series over time (whose buckets would span all of InfluxDB's history).
      const wholeRun = RUN_FILTER.test(q) && !/GROUP BY time\(/i.test(outer(q));
      if (!q.includes('$timeFilter') && !wholeRun) f.push(`${where}: no $timeFilter and not a whole-run query of a run variable`);
      // The outer GROUP BY time() follows the panel width; fixed buckets are
      // allowed only inside a subquery (run-level rates).
      for (const m of outer(q).matchAll(/GROUP BY time\(([^)]*)\)/gi)) {
        if (m[1] !== '$__interval') f.push(`${where}: GROUP BY time(${m[1]}) instead of $__interval`);
      }
      if (/GROUP BY time\(/i.test(outer(q)) && !/fill\((none|null|0)\)/i.test(outer(q))) f.push(`${where}: GROUP BY time without fill()`);
      if (/\bGROUP BY\b[^;]*"(vu|iter|url)"/i.test(q)) f.push(`${where}: groups by a high-cardinality tag`);
    }
    return f;
  },
  'target-metric-contract-rule': (d) => {
    const f = [];
    for (const { panel, t } of targets(d)) {
      const q = t.query ?? '';
      for (const m of q.matchAll(/FROM\s+"([^"]+)"/gi)) {
        const fields = CONTRACT[m[1]];
        if (!fields) {
          f.push(`panel "${panel.title}": measurement ${m[1]} is not in the metric contract`);
          continue;
        }
        // Fields named in aggregate calls must exist in that measurement.
        const select = q.slice(0, m.index);
        for (const fm of select.matchAll(/\(\s*"([^"]+)"/g)) {
          if (!fields.includes(fm[1]) && fm[1] !== 'tps') f.push(`panel "${panel.title}": ${m[1]} has no field ${fm[1]}`);
        }
        if (K6_MEASUREMENTS.has(m[1]) && !RUN_FILTER.test(q)) {
          f.push(`panel "${panel.title}": k6 measurement ${m[1]} not filtered by the run variable`);
        }
      }
    }
    return f;
  },
  'annotation-run-window-rule': (d) => {
    // Our annotations (the built-in one aside) query InfluxDB through $datasource for one run.
    const f = [];
    for (const a of d.annotations.list.filter((x) => !x.builtIn)) {
      if (!isDsRef(a.datasource?.uid) || !isDsRef(a.target?.datasource?.uid)) f.push(`annotation "${a.name}" not on $datasource`);
      if (a.target?.rawQuery !== true || !RUN_FILTER.test(a.target?.query ?? '')) f.push(`annotation "${a.name}" is not a raw query of one run`);
    }
    return f;
  },
  'template-variable-used-rule': (d) => {
    const texts = [...targets(d).map(({ t }) => t.query), ...d.templating.list.map((v) => (typeof v.query === 'string' ? v.query : ''))];
    return d.templating.list
      .filter((v) => v.type !== 'datasource')
      .filter((v) => !texts.some((s) => s.includes(`$${v.name}'`) || s.includes(`$${v.name}$`) || s.includes(`\${${v.name}}`)))
      .map((v) => `variable ${v.name} is not used by any query`);
  },
  'transformation-fields-rule': (d) => {
    // calculateField must name fields that exist: the query aliases or an
    // earlier step's alias; otherwise Grafana silently shows nothing.
    const f = [];
    for (const p of dataPanels(d)) {
      const known = new Set();
      for (const t of p.targets ?? []) for (const m of (t.query ?? '').matchAll(/AS "([^"]+)"/g)) known.add(m[1]);
      for (const tr of p.transformations ?? []) {
        if (tr.id !== 'calculateField') continue;
        const { left, right } = tr.options.binary;
        for (const side of [left, right]) {
          if (!known.has(side) && Number.isNaN(Number(side))) f.push(`panel "${p.title}": calculateField uses unknown field "${side}"`);
        }
        known.add(tr.options.alias);
      }
    }
    return f;
  },
};

for (const file of FILES) {
  describe(`dashboards/${file}`, () => {
    const d = load(file);
    for (const [name, rule] of Object.entries(rules)) {
      test(name, () => assert.deepEqual(rule(d), []));
    }
  });
}

test('uids and titles are unique across dashboards', () => {
  const all = FILES.map(load);
  assert.equal(new Set(all.map((d) => d.uid)).size, all.length);
  assert.equal(new Set(all.map((d) => d.title)).size, all.length);
});

test('check-in/check-out: run variable, run-level stats and slow-API highlight', () => {
  const d = load('folio-check-in-check-out.json');
  const names = d.templating.list.map((v) => v.name);
  assert.deepEqual(names, ['datasource', 'release', 'testid']);
  const testid = d.templating.list.find((v) => v.name === 'testid');
  assert.match(testid.query, /^SHOW TAG VALUES FROM "transaction_duration" WITH KEY = "testid"/);
  assert.equal(testid.multi, false, 'a run-level p95 is only meaningful for one run');

  // Run-level percentiles come from all samples, not from per-bucket values.
  const stats = dataPanels(d).filter((p) => p.type === 'stat');
  for (const title of ['Check-out avg', 'Check-out p95', 'Check-in avg', 'Check-in p95']) {
    const p = stats.find((s) => s.title === title);
    assert.ok(p, `stat panel ${title}`);
    assert.doesNotMatch(p.targets[0].query, /GROUP BY time/i, `${title} must be computed over the whole run`);
  }
  const table = dataPanels(d).find((p) => p.title === 'Response time by API');
  assert.match(table.targets[0].query, /GROUP BY "name"$/);
  const p75 = table.fieldConfig.overrides.find((o) => o.matcher.options === 'p75');
  const steps = p75.properties.find((x) => x.id === 'thresholds').value.steps;
  assert.deepEqual(steps.at(-1), { color: 'red', value: 100 });

  const cpu = dataPanels(d).find((p) => p.title === 'Module CPU');
  assert.match(cpu.targets[0].query, /mean\("cpu_percent"\) FROM "module_stats".*GROUP BY time\(\$__interval\), "module"/);
  assert.equal(cpu.fieldConfig.defaults.unit, 'percent');
});

test('mod-search: search runs only, p95 per group, CPU side by side, the reindex window', () => {
  const d = load('folio-mod-search.json');
  assert.deepEqual(d.templating.list.map((v) => v.name), ['datasource', 'release', 'testid', 'group']);
  const testid = d.templating.list.find((v) => v.name === 'testid');
  assert.match(testid.query, /FROM "http_req_duration" WITH KEY = "testid" WHERE "workflow" = 'search'/);
  assert.equal(testid.multi, false);
  const panel = (title) => {
    const p = dataPanels(d).find((x) => x.title === title);
    assert.ok(p, `panel ${title}`);
    return p;
  };
  assert.match(panel('p95 by group').targets[0].query, /percentile\("value", 95\).*GROUP BY time\(\$__interval\), "group"/);
  assert.match(panel('Response time by template').targets[0].query, /GROUP BY "name", "phase"$/);
  assert.match(panel('Average by kind and phase').targets[0].query, /GROUP BY "kind", "phase"$/);
  assert.match(panel('mod-search and OpenSearch CPU').targets[0].query, /"module" =~ \/\^\(mod-search\|opensearch\)\$\/.*GROUP BY time\(\$__interval\), "module"/);
  assert.match(panel('Reindex running').targets[0].query, /FROM "reindex_running" WHERE "testid" = '\$testid'/);
  assert.match(panel('OpenSearch indexing and search rates').targets[0].query, /non_negative_derivative\(max\("indexing_index_total"\), 1s\)/);
  // Run-level numbers over the whole run, not per bucket.
  assert.doesNotMatch(panel('Search p95').targets[0].query, /GROUP BY time/);
});

test('release comparison: two runs, Delta % columns computed from both', () => {
  const d = load('folio-release-comparison.json');
  const names = d.templating.list.map((v) => v.name);
  assert.deepEqual(names, ['datasource', 'release', 'testid_a', 'testid_b']);
  const grid = dataPanels(d).find((p) => p.title === 'Check-in / check-out by user count');
  assert.deepEqual(grid.targets.map((t) => t.refId), ['A', 'B']);
  assert.match(grid.targets[0].query, /'\$testid_a'.*GROUP BY "vus", "transaction"/);
  assert.match(grid.targets[1].query, /'\$testid_b'.*GROUP BY "vus", "transaction"/);
  const aliases = grid.transformations.filter((t) => t.id === 'calculateField').map((t) => t.options.alias);
  for (const s of ['avg', 'p50', 'p75', 'p95']) assert.ok(aliases.includes(`Δ ${s} %`), `Δ ${s} %`);
  const api = dataPanels(d).find((p) => p.title === 'API p75, A vs B');
  assert.ok(api.transformations.some((t) => t.options?.alias === 'Δ p75 %'));
});

// The rules must catch what they claim to catch.
test('lint rules reject broken dashboards', () => {
  const d = load('folio-check-in-check-out.json');
  const broken = structuredClone(d);
  const p = broken.panels.find((x) => x.title === 'Check-out p95');
  delete p.description;
  p.fieldConfig.defaults.unit = undefined;
  p.targets[0].query = p.targets[0].query.replace(' AND $timeFilter', '') + ' GROUP BY time(10s)';
  p.datasource = { type: 'influxdb', uid: 'P951FEA4DE68E13C5' };
  broken.templating.list = broken.templating.list.filter((v) => v.name !== 'datasource');
  broken.editable = true;
  const found = Object.fromEntries(Object.entries(rules).map(([n, r]) => [n, r(broken).length]));
  for (const name of [
    'template-datasource-rule',
    'panel-datasource-rule',
    'panel-title-description-rule',
    'panel-units-rule',
    'uneditable-dashboard',
    'target-influxql-rule',
  ]) {
    assert.ok(found[name] > 0, `${name} did not flag the broken dashboard`);
  }
  const bad = structuredClone(d);
  bad.panels.find((x) => x.title === 'Module CPU').targets[0].query =
    'SELECT mean("usage_percent") FROM "docker_container_cpu" WHERE $timeFilter GROUP BY time($__interval)';
  bad.panels.find((x) => x.title === 'Check-in avg').targets[0].query =
    'SELECT mean("value") FROM "transaction_duration" WHERE $timeFilter';
  assert.equal(rules['target-metric-contract-rule'](bad).length, 2);
  // Without $timeFilter: a Telegraf query, and a run's series over time, are flagged.
  const noRange = structuredClone(d);
  noRange.panels.find((x) => x.title === 'Module CPU').targets[0].query =
    'SELECT mean("cpu_percent") FROM "module_stats" GROUP BY time($__interval), "module" fill(none)';
  noRange.panels.find((x) => x.title === 'Check-out p50 / p75 / p95').targets[0].query =
    `SELECT percentile("value", 95) FROM "transaction_duration" WHERE "testid" = '$testid' GROUP BY time($__interval) fill(none)`;
  assert.equal(rules['target-influxql-rule'](noRange).length, 2);
  const anno = structuredClone(d);
  anno.annotations.list.find((a) => a.name === 'Run start').target.query = 'SELECT first("value") FROM "vus"';
  assert.equal(rules['annotation-run-window-rule'](anno).length, 1);
  assert.ok(outer('SELECT mean("x") FROM (SELECT count("value") AS "x" FROM "a" GROUP BY time(1s)) WHERE $timeFilter').indexOf('time(1s)') < 0);
});
