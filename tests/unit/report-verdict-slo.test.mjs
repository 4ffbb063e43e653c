// folio-perf verdict's SLO check, without InfluxDB: the threshold keys and rules it reads, and k6's
// percentile rebuilt from InfluxDB's nearest-rank percentile() (a stand-in below does what
// InfluxDB 1.x's percentile() does). tests/e2e/scale.test.mjs checks it against a real InfluxDB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseKey, parseRule, holds, k6Ranks, influxPercentileForRank, k6Percentile } from '../../tools/verdict/slo.mjs';

// go.k6.io/k6 metrics/sink.go TrendSink.P, for comparison.
function k6P(values, pct) {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 1) return v[0];
  const i = (pct / 100) * (v.length - 1);
  const j = v[Math.floor(i)];
  const k = v[Math.ceil(i)];
  return j + (k - j) * (i - Math.floor(i));
}
// InfluxDB 1.x percentile(): nearest rank, null outside the samples.
function influxP(values, pct) {
  const v = [...values].sort((a, b) => a - b);
  const i = Math.floor((v.length * pct) / 100 + 0.5) - 1;
  return i < 0 || i >= v.length ? null : v[i];
}
// An InfluxDB client over one series of values, answering the two statements k6Percentile sends.
function fakeInflux(values) {
  return {
    async query(statement) {
      if (/count\("value"\)/.test(statement)) return [{ values: [[0, values.length]] }];
      const ps = [...statement.matchAll(/percentile\("value", ([0-9.e+-]+)\)/g)].map((m) => influxP(values, Number(m[1])));
      return [{ values: [[0, ...ps]] }];
    },
  };
}
function prng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
}

test('threshold keys: metric and tag filters as k6 writes them', () => {
  assert.deepEqual(parseKey('transaction_duration{transaction:check-out}'), { metric: 'transaction_duration', tags: { transaction: 'check-out' } });
  assert.deepEqual(parseKey('http_req_duration{name:GET /automated-patron-blocks/{id}}'), { metric: 'http_req_duration', tags: { name: 'GET /automated-patron-blocks/{id}' } });
  assert.deepEqual(parseKey('http_req_failed'), { metric: 'http_req_failed', tags: {} });
  assert.deepEqual(parseKey('http_req_duration{name:GET /x,vus:5}').tags, { name: 'GET /x', vus: '5' });
});

test('rules: stat, operator and limit; k6 operators hold as k6 evaluates them', () => {
  assert.deepEqual(parseRule('p(95)<2000'), { stat: 'p(95)', pct: 95, op: '<', limit: 2000 });
  assert.deepEqual(parseRule('p(99.9)<=10'), { stat: 'p(99.9)', pct: 99.9, op: '<=', limit: 10 });
  assert.deepEqual(parseRule('med<5'), { stat: 'med', pct: 50, op: '<', limit: 5 });
  assert.deepEqual(parseRule('rate>=0.99'), { stat: 'rate', pct: null, op: '>=', limit: 0.99 });
  assert.equal(parseRule('count>=0'), null, 'what the SLO check does not judge is left out');
  assert.equal(holds(2000, '<', 2000), false, 'a budget is strict, as k6 p(95)<2000');
  assert.equal(holds(0.01, '<=', 0.01), true);
  assert.equal(holds(0.98, '>=', 0.99), false);
});

test("InfluxDB's percentile() with P = (j + 1) x 100 / n returns exactly the sample of rank j", () => {
  for (const n of [1, 2, 3, 7, 10, 99, 100, 101, 997, 1000, 4096, 12345]) {
    const values = Array.from({ length: n }, (_, i) => i);
    for (let j = 0; j < n; j++) assert.equal(influxP(values, influxPercentileForRank(j, n)), j, `rank ${j} of ${n}`);
  }
});

test("k6's percentile over all samples, rebuilt from InfluxDB, equals k6's own; InfluxDB's percentile() is only within a rank", async () => {
  const rnd = prng(7);
  let differed = 0;
  for (const n of [1, 2, 5, 20, 137, 1000, 5003]) {
    const values = Array.from({ length: n }, () => Math.round(rnd() * 500000) / 1000);
    for (const pct of [50, 75, 90, 95, 99]) {
      const { value, n: count } = await k6Percentile(fakeInflux(values), '"m"', 'true', pct);
      assert.equal(count, n);
      assert.ok(Math.abs(value - k6P(values, pct)) < 1e-9, `n=${n} p(${pct}): ${value} vs k6 ${k6P(values, pct)}`);
      const sorted = [...values].sort((a, b) => a - b);
      const { lo, hi } = k6Ranks(pct, n);
      // Nearest rank lies at most one rank beyond k6's two neighbours.
      const nr = influxP(values, pct);
      assert.ok(nr >= sorted[Math.max(0, lo - 1)] && nr <= sorted[Math.min(n - 1, hi + 1)]);
      if (nr !== value) differed++;
    }
  }
  assert.ok(differed > 0, 'the two definitions do differ on some samples, so the rebuild matters');
  assert.deepEqual(await k6Percentile(fakeInflux([]), '"m"', 'true', 95), { value: null, n: 0 });
});
