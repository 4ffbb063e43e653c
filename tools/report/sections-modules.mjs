// Module CPU and memory per module and user count (Telegraf's module_stats over each step's
// window): CPU average and range in % of one core, RSS average and max, and RSS growth per hour by
// least squares over the step; each module's memory trend over the judged window with the leak
// verdict (the rule: longevity.mjs), which any run with a long enough step can judge. Pure.
import { f1, f2, mib, signedPct } from './format.mjs';
import { growthPerHour } from './stats.mjs';
import { table } from './doc.mjs';
import { moduleTrends, judgedWindow, describeLeakRule, LEAK_RULE } from './longevity.mjs';
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

const RES = { rule: 'resources', toMs: 1 };
const stepKey = (r) => (r.phase ? `${r.vus} (${r.phase})` : String(r.vus));

export function modulesBlock(rows) {
  return table({
    id: 'modules',
    caption: 'Module CPU (% of one core) and memory (RSS, MiB) per user count; growth per hour by least squares, for steps of 10 minutes or more',
    columns: [
      { label: 'Module', get: (r) => r.module },
      { label: 'Users', align: 'r', get: stepKey },
      { label: 'CPU avg %', align: 'r', fmt: f1, get: (r) => r.cpuAvg, cmp: RES },
      { label: 'CPU range %', align: 'r', get: (r) => `${f1(r.cpuMin)}–${f1(r.cpuMax)}`, against: false },
      { label: 'RSS avg MiB', align: 'r', fmt: mib, get: (r) => r.memAvg, cmp: RES },
      { label: 'RSS max MiB', align: 'r', fmt: mib, get: (r) => r.memMax, against: false },
      { label: 'RSS growth MiB/h', align: 'r', get: (r) => r.growthPerHour, fmt: (v) => (v === null || v === undefined ? '-' : `${v >= 0 ? '+' : ''}${mib(v)}`), against: false },
    ],
    data: rows,
    key: (r) => `${r.module}|${stepKey(r)}`,
    labelCols: 2,
    empty: `No ${METRICS.moduleStats} in InfluxDB for the run's window (is Telegraf running and watching the modules?).`,
    source: 'InfluxDB: moduleStats (one query per step) and moduleOverTime (growth: least squares of RSS over the step)',
  });
}

const signedMib = (v) => (v === null || v === undefined ? '-' : `${v >= 0 ? '+' : ''}${mib(v)}`);

/**
 * Each module's RSS trend over the judged window (the longest user-count step without its first
 * fifth: longevity.mjs) with the leak verdict, and the verdict in a sentence.
 */
export function memoryTrendBlocks(modules, steps, rule = LEAK_RULE) {
  const w = judgedWindow(steps);
  const trends = moduleTrends(modules, steps, rule).sort((a, b) => (b.growthPct ?? -Infinity) - (a.growthPct ?? -Infinity) || a.module.localeCompare(b.module));
  const leaks = trends.filter((t) => t.verdict === 'leak').map((t) => t.module);
  return [
    table({
      id: 'longevity-memory',
      caption: `Module memory (RSS) trend ${w ? `over the longest constant-load step (${w.label}, its first fifth left out)` : 'over the whole run'}; rule: ${describeLeakRule(rule)}`,
      columns: [
        { label: 'Module', get: (t) => t.module },
        { label: 'RSS avg MiB', align: 'r', fmt: mib, get: (t) => t.mean },
        { label: 'Growth MiB/h', align: 'r', fmt: signedMib, get: (t) => t.growthPerHour },
        { label: 'Growth %/h', align: 'r', fmt: signedPct, get: (t) => t.growthPct },
        { label: 'R²', align: 'r', fmt: f2, get: (t) => t.r2 },
        { label: '2nd half MiB/h', align: 'r', fmt: signedMib, get: (t) => t.lateGrowthPerHour },
        { label: 'Growth in window', align: 'r', fmt: signedPct, get: (t) => t.windowGrowthPct },
        { label: 'Verdict', get: (t) => t.verdict },
      ],
      data: trends,
      key: (t) => t.module,
      empty: `No ${METRICS.moduleStats} in InfluxDB for the run's window.`,
      source: `InfluxDB: moduleOverTime (least squares of RSS over ${w ? 'that step' : 'the run'})`,
    }),
    { type: 'text', id: 'leak-verdict', text: leakText(leaks, trends, rule) },
  ];
}

function leakText(leaks, trends, rule) {
  if (leaks.length) return `Leak verdict: ${leaks.join(', ')} ${leaks.length === 1 ? 'leaks' : 'leak'} memory by the rule above.`;
  const judged = trends.filter((t) => t.verdict !== 'not judged');
  // Only postgres/influxdb seen (e.g. a real FOLIO whose modules this Telegraf does not watch).
  if (trends.length && judged.length === 0) return "Leak verdict: none given; no FOLIO module's memory was collected (only processes the rule does not judge).";
  if (judged.length && judged.every((t) => t.verdict === 'too short')) return `Leak verdict: none given; the judged window is shorter than ${rule.minSpanMin} minutes.`;
  return 'Leak verdict: no module leaks memory by the rule above.';
}

/** Modules: CPU and memory per step, the memory trend and leak verdict, and their charts. */
export function modulesSection(rows, { modules = [], steps = [], charts = null } = {}) {
  const blocks = [modulesBlock(rows), ...memoryTrendBlocks(modules, steps)];
  if (charts) blocks.push(charts);
  return { id: 'modules', title: 'Modules', blocks };
}
