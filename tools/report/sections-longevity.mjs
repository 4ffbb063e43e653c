// The longevity section: response time per period of the run per transaction or template group,
// and each module's RSS trend over the whole run with the leak verdict (rule in longevity.mjs). Pure.
import { s3, f2, mib, signedPct } from './format.mjs';
import { moduleTrends, judgedWindow, describeLeakRule, LEAK_RULE } from './longevity.mjs';
import { METRICS } from '../../lib/metrics.js';

const signedMib = (v) => (v === null || v === undefined ? '-' : `${v >= 0 ? '+' : ''}${mib(v)}`);

/**
 * @param {{kind, periods: Array<{label, rows: Array<{name, avg, p50, p95, n}>}>}} longevity
 * @param {Array<{module, mem: Array<[t, bytes]>}>} modules
 * @param {string} what 'transaction' | 'group'
 */
export function longevitySection(longevity, modules, what = 'transaction', rule = LEAK_RULE, steps = []) {
  const names = [...new Set(longevity.periods.flatMap((p) => p.rows.map((r) => r.name)))].sort();
  const columns = [{ label: what === 'group' ? 'Group' : 'Transaction', wrap: true }];
  for (const p of longevity.periods) columns.push({ label: `${p.label}: avg s`, align: 'r' }, { label: 'p95 s', align: 'r' });
  columns.push({ label: 'p95 last vs first', align: 'r' });
  const rows = names.map((n) => {
    const cells = longevity.periods.map((p) => p.rows.find((r) => r.name === n));
    const [first, last] = [cells[0], cells[cells.length - 1]];
    const change = first?.p95 > 0 && Number.isFinite(last?.p95) ? (last.p95 / first.p95 - 1) * 100 : null;
    return [n, ...cells.flatMap((c) => [s3(c?.avg / 1000), s3(c?.p95 / 1000)]), signedPct(change)];
  });
  const kindNote = longevity.kind === 'hours' ? 'first hour, middle, last hour' : 'the run is shorter than 3 hours: first, middle and last third of it';
  // The verdict is judged over the longest step without its first fifth (longevity.mjs).
  const w = judgedWindow(steps);
  const trends = moduleTrends(modules, steps, rule).sort((a, b) => (b.growthPct ?? -Infinity) - (a.growthPct ?? -Infinity) || a.module.localeCompare(b.module));
  const leaks = trends.filter((t) => t.verdict === 'leak').map((t) => t.module);
  return {
    id: 'longevity',
    title: 'Longevity',
    blocks: [
      {
        type: 'table',
        id: 'longevity-periods',
        caption: `Response time per period (${kindNote}) per ${what}`,
        columns,
        rows,
        empty: 'No samples.',
        source: 'InfluxDB: periodResponse (one query per period)',
      },
      {
        type: 'table',
        id: 'longevity-memory',
        caption: `Module memory (RSS) trend ${w ? `over the longest constant-load step (${w.label}, its first fifth left out)` : 'over the whole run'}; rule: ${describeLeakRule(rule)}`,
        columns: [{ label: 'Module' }, { label: 'RSS avg MiB', align: 'r' }, { label: 'Growth MiB/h', align: 'r' }, { label: 'Growth %/h', align: 'r' }, { label: 'R²', align: 'r' }, { label: '2nd half MiB/h', align: 'r' }, { label: 'Growth in window', align: 'r' }, { label: 'Verdict' }],
        rows: trends.map((t) => [t.module, mib(t.mean), signedMib(t.growthPerHour), signedPct(t.growthPct), f2(t.r2), signedMib(t.lateGrowthPerHour), signedPct(t.windowGrowthPct), t.verdict]),
        empty: `No ${METRICS.moduleStats} in InfluxDB for the run's window.`,
        source: `InfluxDB: moduleOverTime (least squares of RSS over ${w ? 'that step' : 'the run'})`,
      },
      { type: 'text', text: leakText(leaks, trends, rule) },
    ],
  };
}

function leakText(leaks, trends, rule) {
  if (leaks.length) return `Leak verdict: ${leaks.join(', ')} ${leaks.length === 1 ? 'leaks' : 'leak'} memory by the rule above.`;
  const judged = trends.filter((t) => t.verdict !== 'not judged');
  // Only postgres/influxdb seen (e.g. a real FOLIO whose modules this Telegraf does not watch).
  if (trends.length && judged.length === 0) return 'Leak verdict: none given; no FOLIO module\'s memory was collected (only processes the rule does not judge).';
  if (judged.length && judged.every((t) => t.verdict === 'too short')) return `Leak verdict: none given; the judged window is shorter than ${rule.minSpanMin} minutes.`;
  return 'Leak verdict: no module leaks memory by the rule above.';
}
