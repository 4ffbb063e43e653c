// The database section: top statements by total and by mean time during the run, connections per
// user count (and their change from the first step), and RMB's "Doing … without index" lines per
// module with the fields they name. Pure.
import { f1, f2, int, signedPct } from './format.mjs';
import { deltaPct } from './stats.mjs';
import { table } from './doc.mjs';
import { normaliseQuery, topStatements } from './db-statements.mjs';

const stmtColumns = [
  { label: '#', align: 'r', get: (s) => s.rank },
  { label: 'Statement', wrap: true, get: (s) => normaliseQuery(s.query) },
  { label: 'Calls', align: 'r', fmt: int, get: (s) => s.calls },
  { label: 'Total ms', align: 'r', fmt: f1, get: (s) => s.totalMs },
  { label: 'Mean ms', align: 'r', fmt: f2, get: (s) => s.meanMs },
  { label: 'Rows', align: 'r', fmt: int, get: (s) => s.rows },
];
const ranked = (list) => list.map((s, i) => ({ ...s, rank: i + 1 }));
const stepKey = (c) => (c.phase ? `${c.vus} (${c.phase})` : String(c.vus));

/**
 * @param {{statements, withoutIndex, withoutIndexFields, withoutIndexSource}} db readDbFiles()'s result
 * @param {Array<{vus, phase, avg, max}>} connections
 */
export function databaseSection(db, connections, n = 10) {
  const blocks = [];
  if (db.statements) {
    const top = topStatements(db.statements, n);
    const src = 'pg_stat_statements before and after k6 (pg-statements-start.json, pg-statements-end.json), diffed per statement';
    blocks.push(table({ id: 'db-top-total', caption: `Top ${n} statements by total time during the run (${db.statements.length} statements called)`, columns: stmtColumns, data: ranked(top.byTotal), key: (s) => s.queryid, empty: 'No statement was called during the run.', source: src }));
    blocks.push(table({ id: 'db-top-mean', caption: `Top ${n} statements by mean time during the run`, columns: stmtColumns, data: ranked(top.byMean), key: (s) => s.queryid, empty: 'No statement was called during the run.', source: src }));
  } else {
    blocks.push({ type: 'text', text: 'Top statements: not available (no pg_stat_statements snapshots in the run directory: the run was not made by make run, or PostgreSQL lacks pg_stat_statements).' });
  }
  const conn = connections.filter((c) => c.avg !== null);
  const first = conn[0]?.avg ?? null;
  blocks.push(
    table({
      id: 'db-connections',
      caption: 'Database connections (backends on the folio database) per user count; change of the average from the first step',
      columns: [
        { label: 'Users', get: stepKey },
        { label: 'Average', align: 'r', fmt: f1, get: (c) => c.avg, cmp: { rule: 'resources', toMs: 1 } },
        { label: 'Max', align: 'r', fmt: int, get: (c) => c.max, against: false },
        { label: 'vs first step', align: 'r', fmt: signedPct, get: (c) => (c === conn[0] ? null : deltaPct(first, c.avg)) },
      ],
      data: conn,
      key: stepKey,
      empty: "No postgresql samples in InfluxDB for the run's window (is Telegraf's postgresql input running?).",
      source: 'InfluxDB: connections (Telegraf postgresql numbackends, one query per step)',
    }),
  );
  if (db.withoutIndex) {
    const rows = Object.entries(db.withoutIndex).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const fields = db.withoutIndexFields || null;
    blocks.push(
      table({
        id: 'db-without-index',
        caption: `RMB "Doing … without index" lines per module during the run (total ${rows.reduce((a, [, v]) => a + v, 0)})${fields ? ', with the fields they name' : ''}`,
        columns: [
          { label: 'Module', wrap: true, get: (r) => r[0] },
          { label: 'Lines', align: 'r', fmt: int, get: (r) => r[1] },
          ...(fields ? [{ label: 'Fields (lines)', wrap: true, get: (r) => fieldList(fields[r[0]]) }] : []),
        ],
        data: rows,
        key: (r) => r[0],
        empty: 'No module log files.',
        source: db.withoutIndexSource,
      }),
    );
  } else {
    blocks.push({ type: 'text', text: 'Queries without index: not counted (no module log line counts in the run directory; for a real FOLIO pass --module-logs <dir of module logs>).' });
  }
  return { id: 'database', title: 'Database', blocks };
}

// "userId (120), pickupServicePointId (3)": most lines first.
function fieldList(f) {
  const e = Object.entries(f || {}).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return e.length ? e.map(([k, n]) => `${k} (${n})`).join(', ') : '-';
}
