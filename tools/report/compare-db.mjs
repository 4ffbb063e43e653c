// The comparison's database and longevity tables (see compare-tables.mjs for the columns and the
// verdict rule). Pure: gather()'s data of A and B in, table blocks out.
import { f1, f2, s3, mib, signedPct, factor, plural, int } from './format.mjs';
import { deltaPct, timesBetter, verdict } from './stats.mjs';
import { normaliseQuery } from './db-statements.mjs';
import { moduleTrends, longevityJudgement } from './longevity.mjs';
import { METRICS } from '../../lib/metrics.js';

export const STATEMENT_SLACK_MS = 1;

const COLUMNS = (what) => [{ label: what, wrap: true }, { label: 'A', align: 'r' }, { label: 'B', align: 'r' }, { label: 'Δ %', align: 'r' }, { label: 'Times better', align: 'r' }, { label: 'Verdict' }];
const row = (label, a, b, rule, fmt, scale = 1) => [label, fmt(a), fmt(b), signedPct(deltaPct(a, b)), factor(timesBetter(a, b)), rule ? verdict(typeof a === 'number' ? a * scale : a, typeof b === 'number' ? b * scale : b, rule) : '-'];

/**
 * Statements in the top `n` by total time of either run, matched by queryid (the same statement
 * text on the same PostgreSQL version); connections per user count; without-index lines per module.
 */
export function compareDatabase(dA, dB, rule, n = 10) {
  // A statement's mean is milliseconds or less: the API slack (tens of ms) would hide any change.
  const stmtRule = { tolerance: rule.tolerance, slackMs: STATEMENT_SLACK_MS };
  const blocks = [];
  const sa = new Map((dA.db?.statements || []).map((s) => [s.queryid, s]));
  const sb = new Map((dB.db?.statements || []).map((s) => [s.queryid, s]));
  if (sa.size || sb.size) {
    const ids = [...new Set([...(dA.db?.statements || []).slice(0, n), ...(dB.db?.statements || []).slice(0, n)].map((s) => s.queryid))];
    const rows = [];
    for (const id of ids) {
      const q = normaliseQuery((sa.get(id) || sb.get(id)).query, 80);
      rows.push(row(`${q}: total ms`, sa.get(id)?.totalMs ?? null, sb.get(id)?.totalMs ?? null, null, f1));
      rows.push(row(`${q}: mean ms`, sa.get(id)?.meanMs ?? null, sb.get(id)?.meanMs ?? null, stmtRule, f2));
    }
    blocks.push({ type: 'table', id: 'cmp-db-statements', caption: `Statements in the top ${n} by total time of either run (pg_stat_statements, matched by queryid); verdict on the mean: +${Math.round(rule.tolerance * 100)} % + ${STATEMENT_SLACK_MS} ms`, columns: COLUMNS('Statement: measure'), rows, source: 'pg-statements-{start,end}.json of A and B' });
  }
  const ca = new Map((dA.connections || []).map((c) => [`${c.vus}|${c.phase || ''}`, c]));
  const cb = new Map((dB.connections || []).map((c) => [`${c.vus}|${c.phase || ''}`, c]));
  const ckeys = [...new Set([...ca.keys(), ...cb.keys()])].sort((x, y) => Number(x.split('|')[0]) - Number(y.split('|')[0]) || x.localeCompare(y));
  blocks.push({
    type: 'table',
    id: 'cmp-db-connections',
    caption: 'Database connections per user count (average)',
    columns: COLUMNS('Users'),
    rows: ckeys.map((k) => row(plural(Number(k.split('|')[0]), 'user') + (k.split('|')[1] ? `, ${k.split('|')[1]}` : ''), ca.get(k)?.avg ?? null, cb.get(k)?.avg ?? null, null, f1)),
    empty: 'No postgresql samples for either run.',
    source: 'InfluxDB: connections of A and B',
  });
  if (dA.db?.withoutIndex || dB.db?.withoutIndex) {
    const mods = [...new Set([...Object.keys(dA.db?.withoutIndex || {}), ...Object.keys(dB.db?.withoutIndex || {})])].sort();
    blocks.push({
      type: 'table',
      id: 'cmp-db-without-index',
      caption: `RMB "Doing … without index" lines per module during the run; verdict: +${Math.round(rule.tolerance * 100)} % (no slack)`,
      columns: COLUMNS('Module'),
      rows: mods.map((m) => row(m, dA.db?.withoutIndex?.[m] ?? null, dB.db?.withoutIndex?.[m] ?? null, { tolerance: rule.tolerance, slackMs: 0 }, int)),
      source: 'index-lines-{start,end}.json of A and B',
    });
  }
  return blocks;
}

/** p95 per period and transaction/group; RSS growth per hour and the leak verdict per module. */
export function compareLongevity(dA, dB, rule) {
  const rows = [];
  const la = dA.longevity?.periods || [];
  const lb = dB.longevity?.periods || [];
  const names = [...new Set([...la, ...lb].flatMap((p) => p.rows.map((r) => r.name)))].sort();
  for (const nm of names) {
    for (let i = 0; i < Math.max(la.length, lb.length); i++) {
      const a = la[i]?.rows.find((r) => r.name === nm)?.p95;
      const b = lb[i]?.rows.find((r) => r.name === nm)?.p95;
      rows.push(row(`${nm}, ${(la[i] || lb[i]).label} p95`, typeof a === 'number' ? a / 1000 : null, typeof b === 'number' ? b / 1000 : null, rule, s3, 1000));
    }
  }
  const kinds = [dA.longevity?.kind, dB.longevity?.kind];
  // each run's verdict as its own report gives it: over its own judged window
  const trend = (d) => new Map(moduleTrends(d.modules, d.steps).map((t) => [t.module, t]));
  const ta = trend(dA);
  const tb = trend(dB);
  const mods = [...new Set([...ta.keys(), ...tb.keys()])].sort();
  // Periods only for runs longevity can judge (one constant load, long enough: longevity.mjs).
  const judged = [dA, dB].map((d) => longevityJudgement(d.steps || []));
  const periodsBlock = judged.every((j) => j.judged)
    ? [{ type: 'table', id: 'cmp-longevity-periods', caption: `Response time per period (seconds; A: ${kinds[0] === 'hours' ? 'hours' : 'thirds'}, B: ${kinds[1] === 'hours' ? 'hours' : 'thirds'} of the run); verdict: +${Math.round(rule.tolerance * 100)} % + ${rule.slackMs} ms`, columns: COLUMNS('Transaction, period'), rows, empty: 'No samples in either run.', source: 'InfluxDB: periodResponse of A and B' }]
    : [{ type: 'text', text: `Response time per period: not compared (${judged.map((j, i) => (j.judged ? null : `${'AB'[i]}: ${j.reason}`)).filter(Boolean).join('; ')}).` }];
  return [
    ...periodsBlock,
    {
      type: 'table',
      id: 'cmp-longevity-memory',
      caption: 'Module RSS growth over each run\'s judged window (its longest step without the first fifth; MiB/h, least squares) and the leak verdict of each run',
      columns: [{ label: 'Module', wrap: true }, { label: 'A MiB/h', align: 'r' }, { label: 'B MiB/h', align: 'r' }, { label: 'A verdict' }, { label: 'B verdict' }],
      rows: mods.map((m) => [m, mib(ta.get(m)?.growthPerHour), mib(tb.get(m)?.growthPerHour), ta.get(m)?.verdict || '-', tb.get(m)?.verdict || '-']),
      empty: `No ${METRICS.moduleStats} for either run.`,
      source: 'InfluxDB: moduleOverTime of A and B',
    },
  ];
}
