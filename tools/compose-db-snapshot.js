// k6 script: one pg_stat_statements snapshot of the compose stack's own database, for the report's
// Database section, taken by the k6 service's entrypoint (tools/compose-k6.sh) before and after a
// run, as folio-perf run does natively (tools/run/db-snapshot.mjs, whose query this reads: one
// home). The k6 image has neither Node nor psql; this project's k6 has k6/x/sql.
//   k6 run -q -e WHEN=start|end -e OUT=<run directory> tools/compose-db-snapshot.js
// Database: FP_STACK_DB (user@host:port/name, no password) and FOLIO_DB_PASSWORD. A failure costs
// the report its statements table, never the run: one line, exit 0, no file.
/* global __ENV, open -- k6's globals: this k6 script lives among the Node tools (eslint.config.js) */
import sql from 'k6/x/sql';
import driver from 'k6/x/sql/driver/postgres';
import { dbDsn } from '../lib/config.js';

const source = open('./run/db-snapshot.mjs');
const query = /export const STATEMENTS_SQL = `([^`]+)`/.exec(source);

export const options = { vus: 1, iterations: 1 };

function snapshot() {
  if (!query) return { error: 'tools/run/db-snapshot.mjs has no STATEMENTS_SQL' };
  const m = /^([^@/]+)@([^:/]+):(\d+)\/(\w+)$/.exec(__ENV.FP_STACK_DB || '');
  if (!m) return { error: `FP_STACK_DB "${__ENV.FP_STACK_DB || ''}" is not user@host:port/name` };
  const [, user, host, port, name] = m;
  let db;
  try {
    db = sql.open(driver, dbDsn({ user, password: __ENV.FOLIO_DB_PASSWORD || '', host, port, name, sslmode: 'disable' }));
    const rows = db.query(query[1]);
    // json_agg's text (k6/x/sql hands json over as a string), checked before it is filed
    const text = rows.length ? Object.values(rows[0])[0] : null;
    if (typeof text !== 'string' || !Array.isArray(JSON.parse(text))) return { error: 'pg_stat_statements answered no JSON array' };
    return { text };
  } catch (e) {
    // never the DSN: it holds the password
    return { error: `${user}@${host}:${port}/${name}: ${String(e && e.message ? e.message : e).split('\n')[0].replace(/postgres:\/\/\S*/g, '<dsn>')}` };
  } finally {
    if (db) db.close();
  }
}

export function setup() {
  return snapshot();
}

export default function () {}

export function handleSummary(data) {
  const when = __ENV.WHEN;
  const s = data.setup_data || { error: 'no setup' };
  if (s.error) return { stdout: `==> report: no pg_stat_statements snapshot (${when}): ${s.error}\n` };
  return { [`${__ENV.OUT}/pg-statements-${when}.json`]: `${s.text}\n` };
}
