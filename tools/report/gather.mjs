// Everything the report reads from InfluxDB for one run, as plain data (the I/O half; the pages
// are built from this by build.mjs). Windows of the user-count steps come from the samples' `vus`
// tag (first and last http_reqs sample per value), so an interrupted run reports the steps that ran.
import { QUERIES, intervalFor } from './queries.mjs';
import { rowsOf } from './influx.mjs';
import { ReportError } from './errors.mjs';
import { stepLabel } from './format.mjs';
import { readDbFiles, gatherConnections, gatherPeriods } from './db-gather.mjs';

const byTag = (series, tag) => rowsOf(series).filter((s) => s.tags[tag] !== undefined && s.tags[tag] !== '');

export async function stepWindows(client, testid) {
  const [first, last] = [await client.query(QUERIES.stepStart(testid), 'stepStart'), await client.query(QUERIES.stepEnd(testid), 'stepEnd')];
  const key = (s) => `${s.tags.vus}|${s.tags.phase || ''}`;
  const end = new Map(byTag(last, 'vus').map((s) => [key(s), s.rows[0]?.time]));
  const steps = byTag(first, 'vus')
    .map((s) => ({ vus: Number(s.tags.vus), phase: s.tags.phase || null, fromMs: s.rows[0]?.time, toMs: end.get(key(s)) }))
    .filter((s) => Number.isFinite(s.vus) && Number.isFinite(s.fromMs) && Number.isFinite(s.toMs));
  return steps.sort((a, b) => a.fromMs - b.fromMs);
}

/**
 * wf: the workflow's tools module (its `series`: what the charts follow over time);
 * opts.dir: the run's directory (its database snapshots); opts.moduleLogs: --module-logs.
 */
export async function gather(client, summary, wf, opts = {}) {
  const testid = summary.meta.testid;
  const steps = await stepWindows(client, testid);
  if (steps.length === 0) {
    throw new ReportError(`InfluxDB at ${client.url} has no samples of run ${testid}; fix: point FP_INFLUX_URL / --influx at the InfluxDB the run wrote to (k6 -o influxdb-lp=...)`);
  }
  const fromMs = Math.min(...steps.map((s) => s.fromMs));
  const toMs = Math.max(...steps.map((s) => s.toMs));
  const intervalS = intervalFor(fromMs, toMs);

  const errors = rowsOf(await client.query(QUERIES.errors(testid), 'errors')).map((s) => ({ name: s.tags.name, status: s.tags.status, requests: s.rows[0]?.requests ?? 0 }));

  // e.g. per transaction, or per template group (the reindex VU's calls carry no group).
  const { measurement, tag } = wf.series;
  // k6's own `group` tag names its group path (setup's requests carry "::setup"): not a template group.
  const series = (rows) => byTag(rows, tag).filter((x) => !String(x.tags[tag]).startsWith('::'));
  const rt = series(await client.query(QUERIES.responseOverTime(testid, measurement, tag, intervalS), 'responseOverTime'));
  const tp = series(await client.query(QUERIES.throughputOverTime(testid, measurement, tag, intervalS), 'throughputOverTime'));

  const moduleSteps = [];
  for (const st of steps) {
    const stats = rowsOf(await client.query(QUERIES.moduleStats(st.fromMs, st.toMs), `moduleStats (${stepLabel(st)})`)).map((s) => ({ module: s.tags.module, ...s.rows[0] }));
    moduleSteps.push({ vus: st.vus, phase: st.phase, fromMs: st.fromMs, toMs: st.toMs, stats });
  }
  const modSeries = byTag(await client.query(QUERIES.moduleOverTime(fromMs, toMs, intervalS), 'moduleOverTime'), 'module');
  const modules = modSeries.map((s) => ({
    module: s.tags.module,
    cpu: s.rows.filter((r) => r.cpu !== null).map((r) => [r.time, r.cpu]),
    mem: s.rows.filter((r) => r.mem !== null).map((r) => [r.time, r.mem]),
  }));
  for (const ms of moduleSteps) {
    ms.memPoints = Object.fromEntries(modules.map((m) => [m.module, m.mem.filter(([t]) => t >= ms.fromMs && t <= ms.toMs)]));
  }
  const connections = await gatherConnections(client, steps);
  const longevity = await gatherPeriods(client, testid, measurement, tag, fromMs, toMs);
  const db = opts.dir ? readDbFiles(opts.dir, opts.moduleLogs, fromMs, toMs) : { statements: null, withoutIndex: null, withoutIndexSource: null };
  return {
    steps,
    connections,
    longevity,
    db,
    fromMs,
    toMs,
    intervalS,
    errors,
    seriesTag: tag,
    responseTime: rt.map((s) => ({ name: s.tags[tag], avg: s.rows.map((r) => [r.time, r.avg]), p95: s.rows.map((r) => [r.time, r.p95]) })),
    throughput: tp.map((s) => ({ name: s.tags[tag], points: s.rows.map((r) => [r.time, r.count / intervalS]) })),
    moduleSteps,
    modules,
    queries: [...client.used],
  };
}
