// The longevity section: response time per period of a constant-load run long enough to judge
// (longevity.mjs longevityJudgement), per transaction or template group, with the p95 change from
// the first period to the last. The memory trend and leak verdict are the Modules section's. Pure.
import { f1, secondsFormat, signedPct } from './format.mjs';
import { table } from './doc.mjs';

/**
 * @param {{kind, periods: Array<{label, rows: Array<{name, avg, p50, p95, n}>}>}} longevity
 * @param {string} what 'transaction' | 'group'
 * @param {'s'|'ms'} unit the workflow's unit for these times (transactions in seconds, requests in ms)
 */
export function longevitySection(longevity, what = 'transaction', unit = 's') {
  const names = [...new Set(longevity.periods.flatMap((p) => p.rows.map((r) => r.name)))].sort();
  const scale = unit === 's' ? 1 / 1000 : 1;
  const data = names.map((n) => {
    const cells = longevity.periods.map((p) => p.rows.find((r) => r.name === n));
    const [first, last] = [cells[0], cells[cells.length - 1]];
    const change = first?.p95 > 0 && Number.isFinite(last?.p95) ? (last.p95 / first.p95 - 1) * 100 : null;
    return { name: n, cells, change };
  });
  const fmt = unit === 's' ? secondsFormat(data.flatMap((d) => d.cells.flatMap((c) => [c?.avg, c?.p95].map((v) => (Number.isFinite(v) ? v * scale : null))))) : f1;
  const columns = [{ label: what === 'group' ? 'Group' : 'Transaction', wrap: true, get: (d) => d.name }];
  longevity.periods.forEach((p, i) => {
    columns.push({ label: `${p.label}: avg ${unit}`, align: 'r', fmt, get: (d) => (Number.isFinite(d.cells[i]?.avg) ? d.cells[i].avg * scale : null) });
    columns.push({ label: `${p.label}: p95 ${unit}`, align: 'r', fmt, get: (d) => (Number.isFinite(d.cells[i]?.p95) ? d.cells[i].p95 * scale : null) });
  });
  columns.push({ label: 'p95 last vs first', align: 'r', fmt: signedPct, get: (d) => d.change });
  const kindNote = longevity.kind === 'hours' ? 'first hour, middle, last hour' : 'the run is shorter than 3 hours: first, middle and last third of it';
  return {
    id: 'longevity',
    title: 'Longevity',
    blocks: [
      table({
        id: 'longevity-periods',
        caption: `Response time per period (${kindNote}) per ${what} (${unit === 's' ? 'seconds' : 'milliseconds'})`,
        columns,
        data,
        key: (d) => d.name,
        empty: 'No samples.',
        source: 'InfluxDB: periodResponse (one query per period)',
      }),
    ],
  };
}
