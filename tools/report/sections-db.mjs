// The database section: top statements by total and by mean time during the run, connections per
// user count, and RMB's "Doing … without index" lines per module. Pure.
import { f1, f2, int } from './format.mjs';
import { normaliseQuery, topStatements } from './db-statements.mjs';

const stmtColumns = [{ label: 'Statement', wrap: true }, { label: 'Calls', align: 'r' }, { label: 'Total ms', align: 'r' }, { label: 'Mean ms', align: 'r' }, { label: 'Rows', align: 'r' }];
const stmtRow = (s) => [normaliseQuery(s.query), int(s.calls), f1(s.totalMs), f2(s.meanMs), int(s.rows)];

/**
 * @param {{statements, withoutIndex, withoutIndexSource}} db readDbFiles()'s result
 * @param {Array<{vus, phase, avg, max}>} connections
 */
export function databaseSection(db, connections, n = 10) {
  const blocks = [];
  if (db.statements) {
    const top = topStatements(db.statements, n);
    const src = 'pg_stat_statements before and after k6 (pg-statements-start.json, pg-statements-end.json), diffed per statement';
    blocks.push({ type: 'table', id: 'db-top-total', caption: `Top ${n} statements by total time during the run (${db.statements.length} statements called)`, columns: stmtColumns, rows: top.byTotal.map(stmtRow), empty: 'No statement was called during the run.', source: src });
    blocks.push({ type: 'table', id: 'db-top-mean', caption: `Top ${n} statements by mean time during the run`, columns: stmtColumns, rows: top.byMean.map(stmtRow), empty: 'No statement was called during the run.', source: src });
  } else {
    blocks.push({ type: 'text', text: 'Top statements: not available (no pg_stat_statements snapshots in the run directory: the run was not made by make run, or PostgreSQL lacks pg_stat_statements).' });
  }
  blocks.push({
    type: 'table',
    id: 'db-connections',
    caption: 'Database connections (backends on the folio database) per user count',
    columns: [{ label: 'Users' }, { label: 'Average', align: 'r' }, { label: 'Max', align: 'r' }],
    rows: connections.filter((c) => c.avg !== null).map((c) => [c.phase ? `${c.vus} (${c.phase})` : String(c.vus), f1(c.avg), int(c.max)]),
    empty: 'No postgresql samples in InfluxDB for the run\'s window (is Telegraf\'s postgresql input running?).',
    source: 'InfluxDB: connections (Telegraf postgresql numbackends, one query per step)',
  });
  if (db.withoutIndex) {
    const rows = Object.entries(db.withoutIndex).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    blocks.push({
      type: 'table',
      id: 'db-without-index',
      caption: `RMB "Doing … without index" lines per module during the run (total ${rows.reduce((a, [, v]) => a + v, 0)})`,
      columns: [{ label: 'Module', wrap: true }, { label: 'Lines', align: 'r' }],
      rows: rows.map(([m, v]) => [m, int(v)]),
      empty: 'No module log files.',
      source: db.withoutIndexSource,
    });
  } else {
    blocks.push({ type: 'text', text: 'Queries without index: not counted (no module log line counts in the run directory; for a real FOLIO pass --module-logs <dir of module logs>).' });
  }
  return { id: 'database', title: 'Database', blocks };
}
