import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildThresholds, workflowSpec, parseJsonFile, ThresholdsError, NOOP } from '../../lib/thresholds.js';
import { fromSummary, validateBaseline, parseMetricKey, BaselineError, BASELINE_FORMAT } from '../../lib/baseline.js';

const doc = JSON.parse(readFileSync(new URL('../../thresholds.json', import.meta.url), 'utf8'));
const data = JSON.parse(readFileSync(new URL('./fixtures/k6-summary-data.json', import.meta.url), 'utf8'));
const meta = { workflow: 'cico', release: 'fast', testid: 'cico-20261122T040000Z-fast', created: '2026-11-22T04:10:00Z' };

function oneLine(fn, Cls) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof Cls, `expected ${Cls.name}, got ${e}`);
    assert.ok(!e.message.includes('\n'));
    assert.match(e.message, /; fix: /);
    return e.message;
  }
  assert.fail('no error');
}

test('thresholds.json: absolute SLOs per transaction, per API and error rates, each with a reason', () => {
  const t = buildThresholds({ doc, workflow: 'cico' });
  assert.deepEqual(t['transaction_duration{transaction:check-out}'], ['p(95)<2000']);
  assert.deepEqual(t['transaction_duration{transaction:check-in}'], ['p(95)<1500']);
  assert.deepEqual(t['http_req_duration{name:GET /automated-patron-blocks/{id}}'], ['p(95)<500']);
  assert.deepEqual(t.transaction_failed, ['rate<=0.01']);
  assert.deepEqual(t.checks, ['rate>=0.99']);
  const wf = doc.workflows.cico;
  for (const section of [wf.transactions, wf.apis, wf.rates]) for (const [k, v] of Object.entries(section)) assert.ok(v.why && v.why.length > 20, `${k} has a why`);
});

test('per-vus and per-API sub-metrics get a no-op rule so k6 computes them', () => {
  const t = buildThresholds({ doc, workflow: 'cico', vus: [1, 8], transactions: ['check-in', 'check-out'], apiNames: ['GET /users', 'GET /automated-patron-blocks/{id}'] });
  assert.deepEqual(t['transaction_duration{transaction:check-out,vus:8}'], [NOOP]);
  assert.deepEqual(t['http_req_duration{name:GET /users,vus:1}'], [NOOP]);
  assert.deepEqual(t['http_req_duration{name:GET /users}'], [NOOP]);
  assert.deepEqual(t['transaction_failed{transaction:check-in}'], ['rate>=0']);
  assert.deepEqual(t['http_req_duration{name:GET /automated-patron-blocks/{id}}'], ['p(95)<500'], 'a real rule is kept, not replaced');
});

test('baseline from a recorded k6 summary: whole-run stats per transaction and API', () => {
  const b = fromSummary(data, meta);
  assert.equal(b.format, BASELINE_FORMAT);
  assert.deepEqual(Object.keys(b.transactions).sort(), ['check-in', 'check-out']);
  assert.equal(b.transactions['check-out'].count, 28);
  assert.equal(b.transactions['check-out']['p(95)'], data.metrics['transaction_duration{transaction:check-out}'].values['p(95)']);
  assert.ok(b.apis['GET /automated-patron-blocks/{id}']['p(75)'] > 100);
  assert.ok(!('POST /circulation/check-out-by-barcode' in b.apis), 'APIs without samples are left out');
  assert.ok(!Object.keys(b.apis).some((k) => k.includes('vus')));
  validateBaseline(b, 'cico');
});

test('regression thresholds: baseline x (1 + tolerance) + slack, next to the absolute SLO', () => {
  const b = fromSummary(data, meta);
  const t = buildThresholds({ doc, workflow: 'cico', baseline: b, baselineFile: 'baselines/fast.json' });
  const p95 = b.transactions['check-out']['p(95)'];
  assert.deepEqual(t['transaction_duration{transaction:check-out}'], ['p(95)<2000', `p(95)<${Math.round((p95 * 1.25 + 75) * 1000) / 1000}`]);
  const apb = b.apis['GET /automated-patron-blocks/{id}']['p(95)'];
  assert.equal(t['http_req_duration{name:GET /automated-patron-blocks/{id}}'][1], `p(95)<${Math.round((apb * 1.5 + 50) * 1000) / 1000}`);
  assert.equal(t['http_req_duration{name:GET /groups}'], undefined, 'only the listed APIs are gated');
});

test('a baseline of another workflow, or not a baseline, stops the run with one line', () => {
  const b = fromSummary(data, { ...meta, workflow: 'search' });
  const m = oneLine(() => buildThresholds({ doc, workflow: 'cico', baseline: b, baselineFile: 'baselines/search.json' }), BaselineError);
  assert.match(m, /^baselines\/search\.json: is a baseline of workflow "search", this script runs "cico"/);
  assert.match(oneLine(() => validateBaseline({ format: 'x' }, 'cico', 'b.json'), BaselineError), /format is "x"/);
  assert.match(oneLine(() => validateBaseline({ ...fromSummary(data, meta), transactions: { 'check-out': { 'p(95)': 'fast' } } }, 'cico'), BaselineError), /check-out\.p\(95\) is not a number/);
  assert.match(oneLine(() => fromSummary({ metrics: {} }, meta), BaselineError), /no transaction_duration/);
  assert.match(oneLine(() => fromSummary(data, { workflow: 'cico', release: 'x' }), BaselineError), /"testid" is missing/);
});

test('a malformed thresholds.json stops the run with one line naming the problem', () => {
  const bad = (wf) => () => buildThresholds({ doc: { workflows: { cico: wf } }, workflow: 'cico' });
  assert.match(oneLine(() => parseJsonFile('{"workflows": {', 'thresholds.json'), ThresholdsError), /^thresholds\.json: is not valid JSON/);
  assert.match(oneLine(() => workflowSpec({}, 'cico'), ThresholdsError), /no "workflows" object/);
  assert.match(oneLine(() => workflowSpec({ workflows: {} }, 'cico'), ThresholdsError), /no workflow "cico"/);
  assert.match(oneLine(bad({ transactions: { 'check-out': { 'p95': 2000 } } }), ThresholdsError), /unknown stat "p95"; fix: use avg, min, max, med or p\(N\)/);
  assert.match(oneLine(bad({ transactions: { 'check-out': { 'p(95)': '2s' } } }), ThresholdsError), /p\(95\) must be a positive number of milliseconds/);
  assert.match(oneLine(bad({ transactions: { 'check-out': { why: 'x' } } }), ThresholdsError), /sets no limit/);
  assert.match(oneLine(bad({ apis: { '/users?query=x': { 'p(95)': 1 } } }), ThresholdsError), /not an API name/);
  assert.match(oneLine(bad({ rates: { checks: { min: 99 } } }), ThresholdsError), /fraction between 0 and 1/);
  assert.match(oneLine(bad({ regression: { transactions: { tolerance: -1 } } }), ThresholdsError), /tolerance must be a fraction >= 0/);
});

test('parseMetricKey splits k6 sub-metric names, braces in values included', () => {
  assert.deepEqual(parseMetricKey('http_req_duration{name:GET /automated-patron-blocks/{id},vus:5}'), {
    metric: 'http_req_duration',
    tags: { name: 'GET /automated-patron-blocks/{id}', vus: '5' },
  });
  assert.deepEqual(parseMetricKey('checks'), { metric: 'checks', tags: {} });
});
