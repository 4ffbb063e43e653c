// Database statistics around k6, for the report's database section: pg_stat_statements summed per
// statement, and per minifolio module log the count of RMB's "Doing … without index" lines, once
// before and once after k6 (results/<testid>/pg-statements-{start,end}.json,
// index-lines-{start,end}.json and the fields the lines name, index-fields-{start,end}.json); the
// report diffs the two. Only minifolio's database and logs are
// this stack's: on your FOLIO the report reads module logs you point it at (--module-logs). A
// failure costs the report these tables, never the run.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { WITHOUT_INDEX } from '../report/db-statements.mjs';
import { indexFieldSnapshot } from '../report/db-gather.mjs';
import { stackSql } from './psql.mjs';

export const STATEMENTS_SQL = `SELECT coalesce(json_agg(s), '[]') FROM (SELECT queryid::text AS queryid, min(query) AS query, sum(calls) AS calls,
   sum(total_exec_time) AS total_ms, sum(rows) AS rows FROM pg_stat_statements
   WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) GROUP BY queryid) s`;

/** { module: count of without-index lines } over the *.log files of dir. */
export function indexLineCounts(dir) {
  const out = {};
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.log')).sort()) {
    const text = readFileSync(join(dir, f), 'utf8');
    let n = 0;
    for (const line of text.split('\n')) if (WITHOUT_INDEX.test(line)) n++;
    out[basename(f, '.log')] = n;
  }
  return out;
}

/** Writes the `when` (start|end) snapshot into out; says so when pg_stat_statements did not answer. */
export async function dbSnapshot(when, { out, defaults, minifolioLogs, say }) {
  const file = join(out, `pg-statements-${when}.json`);
  const r = await stackSql(defaults, STATEMENTS_SQL);
  if (r.ok) writeFileSync(file, `${r.out}\n`);
  else {
    rmSync(file, { force: true });
    say(`==> report: no pg_stat_statements snapshot (${when})`);
  }
  writeFileSync(join(out, `index-lines-${when}.json`), `${JSON.stringify(indexLineCounts(minifolioLogs))}\n`);
  // ... and the fields those lines name (the report lists them beside the counts)
  writeFileSync(join(out, `index-fields-${when}.json`), `${JSON.stringify(indexFieldSnapshot(minifolioLogs))}\n`);
}
