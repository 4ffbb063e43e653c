// The comparison's database and longevity tables: rows matched by statement, user count, module
// and period; verdicts by the gate's rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareDatabase, compareLongevity, STATEMENT_SLACK_MS } from '../../tools/report/compare-db.mjs';

const rule = { tolerance: 0.5, slackMs: 50 };
const stmt = (queryid, totalMs, meanMs) => ({ queryid, query: `SELECT ${queryid}`, calls: 1, totalMs, meanMs, rows: 1 });
const data = (statements, withoutIndex, conn, periods, mem) => ({
  db: { statements, withoutIndex },
  connections: conn,
  longevity: { kind: 'thirds', periods },
  modules: mem,
});

test('compareDatabase: statements matched by queryid with a 1 ms slack, connections, without-index lines', () => {
  const A = data([stmt('1', 100, 2), stmt('2', 50, 0.1)], { 'mod-a': 10, 'mod-b': 0 }, [{ vus: 1, avg: 10 }], [], []);
  const B = data([stmt('1', 300, 6), stmt('3', 10, 0.2)], { 'mod-a': 100, 'mod-b': 0 }, [{ vus: 1, avg: 12 }], [], []);
  const [st, conn, wi] = compareDatabase(A, B, rule);
  assert.equal(STATEMENT_SLACK_MS, 1);
  const mean1 = st.rows.find((r) => r[0] === 'SELECT 1: mean ms');
  assert.deepEqual(mean1, ['SELECT 1: mean ms', '2.00', '6.00', '+200.0%', '0.33x', 'regressed']); // 6 > 2 x 1.5 + 1
  assert.equal(st.rows.find((r) => r[0] === 'SELECT 2: mean ms')[2], '-'); // only in A
  assert.equal(st.rows.find((r) => r[0] === 'SELECT 3: mean ms')[5], 'not comparable');
  assert.deepEqual(conn.rows, [['1 user', '10.0', '12.0', '+20.0%', '0.83x', '-']]);
  assert.deepEqual(wi.rows.map((r) => [r[0], r[5]]), [['mod-a', 'regressed'], ['mod-b', 'within noise']]);
});

test('compareLongevity: p95 per period in seconds with the gate\'s verdict; each run\'s leak verdict', () => {
  const p = (vals) => ['first third', 'middle third', 'last third'].map((label, i) => ({ label, rows: [{ name: 'check-out', p95: vals[i] }] }));
  const flat = Array.from({ length: 31 }, (_, i) => [i * 60000, 100 * 1048576]);
  const climbing = Array.from({ length: 31 }, (_, i) => [i * 60000, (100 + i) * 1048576]);
  // one constant load of 30 minutes each: runs longevity can judge
  const steps = [{ vus: 20, fromMs: 0, toMs: 30 * 60000 }];
  const A = { ...data([], null, [], p([100, 100, 100]), [{ module: 'mod-x', mem: flat }]), steps };
  const B = { ...data([], null, [], p([100, 150, 400]), [{ module: 'mod-x', mem: climbing }]), steps };
  const [per, mem] = compareLongevity(A, B, { tolerance: 0.25, slackMs: 75 });
  assert.deepEqual(per.rows.map((r) => [r[0], r[1], r[2], r[5]]), [
    ['check-out, first third p95', '0.100', '0.100', 'within noise'],
    ['check-out, middle third p95', '0.100', '0.150', 'within noise'], // 150 < 100 x 1.25 + 75
    ['check-out, last third p95', '0.100', '0.400', 'regressed'],
  ]);
  assert.deepEqual(mem.rows, [['mod-x', '0.0', '60.0', 'no leak', 'leak']]);
  // a stepped run's periods compare different loads: not compared, and the reason given
  const stepped = { ...B, steps: [{ vus: 1, fromMs: 0, toMs: 60000 }, { vus: 5, fromMs: 60000, toMs: 120000 }] };
  const [not] = compareLongevity(A, stepped, { tolerance: 0.25, slackMs: 75 });
  assert.equal(not.type, 'text');
  assert.match(not.text, /not compared \(B: the run changes its load/);
});
