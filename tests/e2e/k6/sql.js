// Acceptance script for the project's k6/x/sql module.
//
// Question: does `k6/x/sql` against a real PostgreSQL return values a script
// can use directly, and does every failure reach the script as a catchable
// exception carrying the driver's message (without the password)?
//
// All work happens in setup(); it returns observations, and handleSummary
// writes them (with the checks of the one VU iteration) to $SQL_E2E_OUT, where
// tests/e2e/sql.test.mjs asserts on them. The script asserts nothing itself,
// so that a wrong value fails the Node test instead of hiding in a log.
//
// Run: make test-e2e-sql   (needs the stack; see tests/e2e/sql.test.mjs for the env)
import { check } from 'k6';
import sql, { open } from 'k6/x/sql';
import driver from 'k6/x/sql/driver/postgres';

const env = (name) => {
  const v = __ENV[name];
  if (!v) throw new Error(`${name} is not set; run this script through tests/e2e/sql.test.mjs`);
  return v;
};

const DSN = env('FP_PG_DSN');
const TABLE = env('SQL_E2E_TABLE'); // unique per run, [a-z0-9_] only
const ROLE = env('SQL_E2E_ROLE'); // a login role with a secret password, made and dropped here
const ROLE_PW = env('SQL_E2E_ROLE_PW');

export const options = {
  scenarios: { vu: { executor: 'shared-iterations', vus: 1, iterations: 1 } },
  setupTimeout: '120s',
  thresholds: { checks: ['rate==1'] },
};

// Opened in the init context as scripts usually do: sql.open must not
// connect (it runs once more for option parsing), so this proves laziness.
const vuDb = sql.open(driver, DSN, { max_open_conns: 1 });

// attempt runs fn and reports how it ended, as plain JSON-able data.
function attempt(fn) {
  try {
    const value = fn();
    return { threw: false, value: value === undefined ? null : value };
  } catch (e) {
    return { threw: true, isError: e instanceof Error, message: String(e && e.message) };
  }
}

export function setup() {
  const obs = {
    driver: { type: typeof driver, description: driver.description },
    // upstream also exports open by name
    namedOpen: typeof open === 'function' && attempt(() => open(driver, DSN).close()).threw === false,
  };
  const db = sql.open(driver, DSN, {
    max_open_conns: 4,
    max_idle_conns: 2,
    conn_max_idle_time: '30s',
    conn_max_lifetime: '5m',
  });
  try {
    obs.create = db.exec(`CREATE TABLE ${TABLE} (
        id uuid PRIMARY KEY, title text, copies int, big bigint, price numeric(10,2), ratio float8,
        doc jsonb, created timestamptz, due date, local_ts timestamp, flag bool, note text, raw bytea)`).rowsAffected();

    const ins = `INSERT INTO ${TABLE} (id, title, copies, big, price, ratio, doc, created, due, local_ts, flag, note, raw)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`;
    const r1 = db.exec(ins,
      '6a1e3d52-0b8e-4a55-9f1f-1c7b9a2f0e11', 'Ölgemälde — "quoted"', 3, 9007199254740991, '12.50', 0.25,
      '{"status": {"name": "Available"}, "barcodes": ["A1", "B2"]}',
      '2026-11-22 05:02:12.123456+01', '2026-12-24', '2026-11-22 04:02:12.5', true, null,
      new Uint8Array([0, 1, 255]).buffer);
    // A plain object for jsonb and a Date for timestamptz: sent as JSON text / a timestamp.
    const r2 = db.exec(ins,
      'f0e1d2c3-b4a5-4697-8899-aabbccddeeff', 'second', -7, 0, 1234567.89, -1.5,
      { status: { name: 'Checked out' } }, new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 600)), null, null, false, 'n', null);
    const r3 = db.exec(`INSERT INTO ${TABLE} (id) VALUES ($1)`, '00000000-0000-4000-8000-000000000000');
    obs.inserted = [r1.rowsAffected(), r2.rowsAffected(), r3.rowsAffected()];
    obs.lastInsertId = attempt(() => r1.lastInsertId());
    obs.updated = db.exec(`UPDATE ${TABLE} SET note = $1 WHERE copies IS NOT NULL`, 'seen').rowsAffected();

    const rows = db.query(`SELECT id, title, copies, big, price, ratio, doc, created, due, local_ts, flag, note, raw
                           FROM ${TABLE} ORDER BY copies DESC NULLS LAST`);
    obs.isArray = Array.isArray(rows);
    obs.keys = rows.length ? Object.keys(rows[0]) : [];
    obs.rows = rows.map((r) => {
      const out = {};
      for (const k of Object.keys(r)) out[k] = { type: typeof r[k], isNull: r[k] === null, value: r[k] };
      // ArrayBuffer does not survive JSON; report what a script sees.
      out.raw.isArrayBuffer = r.raw instanceof ArrayBuffer;
      out.raw.value = r.raw instanceof ArrayBuffer ? Array.from(new Uint8Array(r.raw)) : r.raw;
      out.createdParses = r.created === null ? null : new Date(r.created).getTime();
      return out;
    });
    obs.placeholderFilter = db.query(`SELECT title FROM ${TABLE} WHERE copies = $1 AND doc->'status'->>'name' = $2`, 3, 'Available');
    obs.empty = db.query(`SELECT * FROM ${TABLE} WHERE false`);
    obs.withTimeoutOk = db.queryWithTimeout('10s', 'SELECT 1 AS one, NULL::text AS nothing');
    obs.execWithTimeoutOk = db.execWithTimeout('10s', `DELETE FROM ${TABLE} WHERE copies IS NULL`).rowsAffected();

    obs.errors = {
      badSql: attempt(() => db.query('SELEC 1')),
      missingTable: attempt(() => db.query(`SELECT * FROM ${TABLE}_missing`)),
      badParam: attempt(() => db.query(`SELECT * FROM ${TABLE} WHERE copies = $1`, 'many')),
      queryTimeout: attempt(() => db.queryWithTimeout('300ms', 'SELECT pg_sleep(20)')),
      execTimeout: attempt(() => db.execWithTimeout('300ms', 'SELECT pg_sleep(20)')),
      badTimeout: attempt(() => db.queryWithTimeout('soon', 'SELECT 1')),
      notADriver: attempt(() => sql.open('postgres', DSN)),
      unknownOption: attempt(() => sql.open(driver, DSN, { maxOpenConns: 1 })),
    };
    // The pool is still usable after every failure above.
    obs.afterErrors = db.query('SELECT 2 AS two');

    // A role whose password the test knows and k6's output must not show.
    db.exec(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${ROLE_PW}'`);
    try {
      const asRole = sql.open(driver, env('SQL_E2E_ROLE_DSN'));
      obs.roleUser = attempt(() => asRole.query('SELECT current_user AS u')[0].u);
      asRole.close();
      obs.badDsn = {
        malformed: attempt(() => sql.open(driver, env('SQL_E2E_DSN_MALFORMED')).query('SELECT 1')),
        wrongPassword: attempt(() => sql.open(driver, env('SQL_E2E_DSN_WRONG_PW')).query('SELECT 1')),
        refused: attempt(() => sql.open(driver, env('SQL_E2E_DSN_REFUSED')).query('SELECT 1')),
        noDatabase: attempt(() => sql.open(driver, env('SQL_E2E_DSN_NO_DB')).query('SELECT 1')),
      };
    } finally {
      db.exec(`DROP ROLE IF EXISTS ${ROLE}`);
    }
  } finally {
    attempt(() => db.exec(`DROP TABLE IF EXISTS ${TABLE}`));
    obs.close = attempt(() => db.close());
  }
  obs.afterClose = attempt(() => db.query('SELECT 1'));
  obs.execAfterClose = attempt(() => db.exec('SELECT 1'));
  return obs;
}

// One iteration on a real VU: the init-context pool works under the VU's
// context, not only in setup().
export default function () {
  const rows = vuDb.query('SELECT $1::int + 1 AS n', 41);
  check(rows, { 'VU query returns 42': (r) => r.length === 1 && r[0].n === 42 });
}

export function handleSummary(data) {
  const checks = data.metrics.checks ? data.metrics.checks.values : null;
  return {
    [env('SQL_E2E_OUT')]: JSON.stringify({ setup: data.setup_data, checks }, null, 2),
    stdout: `sql e2e: observations written (checks: ${JSON.stringify(checks)})\n`,
  };
}
