// Module CPU and memory per module and user count (Telegraf's module_stats over each step's
// window): CPU average and range in % of one core, RSS average and max, and RSS growth per hour by
// least squares over the step. Pure.
import { f1, mib } from './format.mjs';
import { growthPerHour } from './stats.mjs';
import { METRICS } from '../../lib/metrics.js';

// The shortest step whose RSS slope the report calls a growth per hour.
export const MIN_GROWTH_SPAN_MS = 10 * 60 * 1000;

/**
 * @param {Array<{vus, stats: Array<{module, cpu_avg, cpu_min, cpu_max, mem_avg, mem_max}>, memPoints: Object<string, Array<[t, v]>>}>} steps
 * @returns rows [{vus, module, cpuAvg, cpuMin, cpuMax, memAvg, memMax, growthPerHour}]
 */
export function moduleRows(steps) {
  const rows = [];
  for (const st of steps) {
    for (const m of st.stats) {
      rows.push({
        vus: st.vus,
        phase: st.phase || null,
        module: m.module,
        cpuAvg: m.cpu_avg,
        cpuMin: m.cpu_min,
        cpuMax: m.cpu_max,
        memAvg: m.mem_avg,
        memMax: m.mem_max,
        // A slope over a few minutes extrapolated to an hour is noise (start-up, GC cycles).
        growthPerHour: st.toMs - st.fromMs >= MIN_GROWTH_SPAN_MS ? growthPerHour(st.memPoints?.[m.module] || []) : null,
      });
    }
  }
  return rows.sort((a, b) => a.vus - b.vus || String(a.phase).localeCompare(String(b.phase)) || (b.cpuAvg ?? 0) - (a.cpuAvg ?? 0) || a.module.localeCompare(b.module));
}

export function modulesBlock(rows) {
  return {
    type: 'table',
    id: 'modules',
    caption: 'Module CPU (% of one core) and memory (RSS, MiB) per user count; growth per hour by least squares, for steps of 10 minutes or more',
    columns: [{ label: 'Module' }, { label: 'Users', align: 'r' }, { label: 'CPU avg %', align: 'r' }, { label: 'CPU range %', align: 'r' }, { label: 'RSS avg MiB', align: 'r' }, { label: 'RSS max MiB', align: 'r' }, { label: 'RSS growth MiB/h', align: 'r' }],
    rows: rows.map((r) => [r.module, r.phase ? `${r.vus} (${r.phase})` : String(r.vus), f1(r.cpuAvg), `${f1(r.cpuMin)}–${f1(r.cpuMax)}`, mib(r.memAvg), mib(r.memMax), r.growthPerHour === null ? '-' : `${r.growthPerHour >= 0 ? '+' : ''}${mib(r.growthPerHour)}`]),
    empty: `No ${METRICS.moduleStats} in InfluxDB for the run's window (is Telegraf running and watching the modules?).`,
    source: 'InfluxDB: moduleStats (one query per step) and moduleOverTime (growth: least squares of RSS over the step)',
  };
}

export function modulesSection(rows) {
  return { id: 'modules', title: 'Modules', blocks: [modulesBlock(rows)] };
}
