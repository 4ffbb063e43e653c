// Every variable and panel query of a workflow's dashboards, with Grafana's variables substituted
// as Grafana would, run against the real InfluxDB (no Grafana on this machine): shared by the
// dashboards suite and the suites of each path that feeds them (stock k6).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { annotationQueries, panelQueries, variableQueries } from '../../dashboards/src/grafana-vars.mjs';
import { hasValues, influxQuery } from '../../dashboards/src/influx-query.mjs';
import { dashboards as registered, OUT_DIR } from '../../dashboards/src/index.mjs';
import { repo } from './helpers.mjs';

const load = (f) => JSON.parse(readFileSync(join(repo, 'dashboards', OUT_DIR, f), 'utf8'));
// Each workflow's dashboards (its runs feed them), from the registry.
const all = await registered();
export const dashboardsOf = (workflow) => all.filter((d) => d.workflow === workflow).map((d) => load(d.FILE));

/**
 * The minifolio module names that run on platform ('okapi' or 'eureka'), read from the catalog the
 * gateway routes by: a module with a Platform field runs on that platform only (catalog.go Module.On).
 */
export function minifolioModules(platform = 'okapi') {
  const src = readFileSync(join(repo, 'minifolio', 'internal', 'catalog', 'catalog.go'), 'utf8');
  // Each entry runs from its {Name: to the next one's.
  const entries = src.split(/(?=\{Name:)/).slice(1);
  return entries
    .map((e) => ({ name: /^\{Name:\s*"([^"]+)"/.exec(e)[1], only: /Platform:\s*(\w+)/.exec(e)?.[1].toLowerCase() }))
    .filter((m) => !m.only || m.only === platform)
    .map((m) => m.name);
}

/** Values for every variable as a user would pick them: all releases, the run. */
export function selection(testid) {
  return { release: '$__all', testid, testid_a: testid, testid_b: testid, group: '$__all' };
}

/**
 * Runs every variable, annotation and panel query of the dashboards in list; returns a list of problems
 * (errors, empty panels) and the module CPU series' module tags.
 */
export async function checkDashboards(url, db, testid, fromMs, toMs, list) {
  const problems = [];
  let cpuModules = null;
  for (const dash of list) {
    const opts = { fromMs, toMs, values: selection(testid), datasourceUid: 'folio-influxdb' };
    for (const v of variableQueries(dash, opts)) {
      const { error, series } = await influxQuery(url, db, v.query);
      if (error) problems.push(`${dash.uid} variable ${v.name}: ${error} (${v.query})`);
      else if (v.name.startsWith('testid') && !series.some((s) => s.values.some((row) => row[1] === testid))) {
        problems.push(`${dash.uid} variable ${v.name} does not list ${testid}`);
      }
    }
    for (const a of annotationQueries(dash, opts)) {
      const { error, series } = await influxQuery(url, db, a.query);
      if (error) problems.push(`${dash.uid} annotation ${a.name}: ${error} (${a.query})`);
      else if (!series.some(hasValues)) problems.push(`${dash.uid} annotation ${a.name}: no data (${a.query})`);
    }
    for (const q of panelQueries(dash, opts)) {
      const where = `${dash.uid} panel "${q.panelTitle}" ${q.refId}`;
      assert.equal(q.datasourceUid, 'folio-influxdb', `${where}: target not on the datasource variable`);
      const { error, series } = await influxQuery(url, db, q.query);
      if (error) problems.push(`${where}: ${error} (${q.query})`);
      else if (!series.some(hasValues)) problems.push(`${where}: no data (${q.query})`);
      if (q.panelTitle === 'Module CPU' || q.panelTitle === 'mod-search and OpenSearch CPU') cpuModules = series.map((s) => s.tags?.module);
    }
  }
  return { problems, cpuModules };
}
