// Does a k6/x/sql statement run under the VU's context, so that k6 stopping a
// scenario also cancels the statement on the server? (the module promises
// the VU context on every call)
//
// The one VU starts `pg_sleep(120)` in a scenario that k6 stops after 3s with
// no graceful stop. If the module ignored the VU context, the iteration could
// not be interrupted: k6 would wait for the sleep and the server would still
// run it. teardown() looks at pg_stat_activity and records checks; the Node
// test (tests/e2e/sql.test.mjs) asserts on them and on k6 ending well before
// the sleep would have.
import { check, sleep } from 'k6';
import sql from 'k6/x/sql';
import driver from 'k6/x/sql/driver/postgres';

const DSN = __ENV.FP_PG_DSN;
const TABLE = __ENV.SQL_E2E_TABLE; // unique per run
const MARK = __ENV.SQL_E2E_MARK; // unique text inside the sleeping statement

export const options = {
  scenarios: {
    hang: { executor: 'per-vu-iterations', vus: 1, iterations: 1, maxDuration: '3s', gracefulStop: '0s' },
  },
  setupTimeout: '60s',
  teardownTimeout: '60s',
};

const db = sql.open(driver, DSN);

export function setup() {
  db.exec(`CREATE TABLE ${TABLE} (reached bool)`);
}

export default function () {
  db.exec(`INSERT INTO ${TABLE} VALUES (true)`);
  db.query(`SELECT pg_sleep(120), '${MARK}' AS mark`);
}

export function teardown() {
  const admin = sql.open(driver, DSN);
  let active = -1;
  // The cancel request reaches the server asynchronously: poll, bounded.
  for (let i = 0; i < 40; i++) {
    active = admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE $1`, `%${MARK}%`)[0].n;
    if (active === 0) break;
    sleep(0.5);
  }
  const reached = admin.query(`SELECT count(*)::int AS n FROM ${TABLE}`)[0].n;
  admin.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  admin.close();
  check(reached, { 'the VU reached the sleeping statement': (n) => n === 1 });
  check(active, { 'the sleeping statement was cancelled on the server': (n) => n === 0 });
}

export function handleSummary(data) {
  // teardown()'s checks sit in the "teardown" group.
  const checks = {};
  const walk = (g) => {
    for (const c of g.checks) checks[c.name] = { passes: c.passes, fails: c.fails };
    g.groups.forEach(walk);
  };
  walk(data.root_group);
  const completed = data.metrics.iterations ? data.metrics.iterations.values.count : 0;
  return {
    [__ENV.SQL_E2E_OUT]: JSON.stringify({ checks, completedIterations: completed }),
    stdout: `sql vu-context: ${JSON.stringify(checks)}\n`,
  };
}
