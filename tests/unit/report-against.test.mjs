// `report --against`: the previous release's figures beside this run's in the same table
// (tools/report/against.mjs): A, B, Δ and a verdict by the gate's rule for each compared column,
// rows matched by key (a row one run lacks looked up when the table can, else "-"), one seconds
// format for both runs, and the tally the Verdict counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { table } from '../../tools/report/doc.mjs';
import { againstBlock, againstRules, tally, judge } from '../../tools/report/against.mjs';
import { f1 } from '../../tools/report/format.mjs';

const rules = againstRules({ transactions: { tolerance: 0.25, slackMs: 75 }, apis: { tolerance: 0.5, slackMs: 50 } });
const tx = (rows, lookup) =>
  table({
    id: 'rt',
    caption: 'Response times (seconds)',
    columns: [
      { label: 'Users', get: (r) => r.vus },
      { label: 'avg', align: 'r', unit: 's', get: (r) => r.avg, cmp: { rule: 'transactions', toMs: 1000 } },
      { label: 'p95', align: 'r', unit: 's', get: (r) => r.p95, cmp: { rule: 'transactions', toMs: 1000 } },
      { label: 'n', align: 'r', get: (r) => r.n, against: false },
    ],
    data: rows,
    key: (r) => String(r.vus),
    lookup,
  });

test('each compared column becomes A, B and Δ; a verdict per row by the gate\'s rule; uncompared detail dropped', () => {
  const a = tx([{ vus: 1, avg: 0.2, p95: 0.4, n: 10 }, { vus: 5, avg: 0.5, p95: 1.0, n: 50 }]);
  const b = tx([{ vus: 1, avg: 0.21, p95: 0.41, n: 11 }, { vus: 5, avg: 0.8, p95: 1.5, n: 40 }]);
  const m = againstBlock(b, a, rules, 'lotus (cico-1)');
  assert.deepEqual(m.columns.map((c) => c.label), ['Users', 'avg A', 'avg B', 'Δ avg', 'p95 A', 'p95 B', 'Δ p95', 'Verdict']);
  // 0.8 > 0.5 x 1.25 + 0.075 = 0.7: regressed; 1.5 > 1.0 x 1.25 + 0.075: regressed
  assert.deepEqual(m.rows, [
    ['1', '0.200', '0.210', '+5.0%', '0.400', '0.410', '+2.5%', 'within noise'],
    ['5', '0.500', '0.800', '+60.0%', '1.000', '1.500', '+50.0%', 'regressed: avg, p95'],
  ]);
  assert.match(m.caption, /; A = lotus \(cico-1\), B = this run; verdict: transactions \+25 % \+ 75 ms$/);
  assert.deepEqual(tally([m]), [{ id: 'rt', caption: m.caption, compared: 2, regressed: 1, improved: 0 }]);
  // swapped: improved
  assert.equal(againstBlock(a, b, rules, 'x').rows[1][7], 'improved: avg, p95');
});

test('rows one run lacks: looked up when the table can (an API under the slow line), else "-" and "only in A/B"', () => {
  const a = tx([{ vus: 1, avg: 0.2, p95: 0.4 }, { vus: 8, avg: 1, p95: 2 }]);
  const b = tx([{ vus: 1, avg: 0.2, p95: 0.4 }, { vus: 20, avg: 3, p95: 6 }]);
  const m = againstBlock(b, a, rules, 'A');
  assert.deepEqual(m.keys, ['1', '20', '8']);
  assert.deepEqual(m.rows[1].slice(-1), ['only in B']);
  assert.deepEqual(m.rows[2], ['8', '1.000', '-', '-', '2.000', '-', '-', 'only in A']);
  // B's table can look up the row it does not list: its figures come in
  const looked = tx([{ vus: 1, avg: 0.2, p95: 0.4 }], (key) => (key === '8' ? ['8', 0.9, 1.9, null] : null));
  const l = againstBlock(looked, a, rules, 'A');
  assert.deepEqual(l.rows[1], ['8', '1.000', '0.900', '-10.0%', '2.000', '1.900', '-5.0%', 'within noise']);
});

test('one seconds format over both runs: the smaller run\'s figures decide the decimals of every cell', () => {
  const a = tx([{ vus: 1, avg: 0.0042, p95: 0.009 }]);
  const b = tx([{ vus: 1, avg: 0.61, p95: 1.2 }]);
  assert.deepEqual(againstBlock(b, a, rules, 'A').rows[0].slice(1, 7), ['0.0042', '0.6100', '+14423.8%', '0.0090', '1.2000', '+13233.3%']);
});

test('resources have no slack; throughput is better higher; tables without a compared column stay as they are', () => {
  assert.equal(judge(100, 126, { rule: 'resources', toMs: 1 }, rules), 'regressed');
  assert.equal(judge(100, 124, { rule: 'resources', toMs: 1 }, rules), 'within noise');
  assert.equal(judge(10, 5, { rule: 'resources', toMs: 1, better: 'higher' }, rules), 'regressed');
  assert.equal(judge(null, 5, { rule: 'apis', toMs: 1 }, rules), 'not comparable');
  const plain = table({ id: 'x', caption: 'c', columns: [{ label: 'a', get: (d) => d, fmt: f1 }], data: [1] });
  assert.equal(againstBlock(plain, plain, rules, 'A'), plain);
  const text = { type: 'text', text: 'x' };
  assert.equal(againstBlock(text, null, rules, 'A'), text);
});
