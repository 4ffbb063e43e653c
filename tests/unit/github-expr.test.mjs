// The expression evaluator that tests/e2e/folio-gate.test.mjs runs folio-gate.yml with
// (tests/e2e/gha-expr.mjs): GitHub's semantics where the workflows rely on them, and a loud failure
// on what it does not know.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { condition, evaluate, interpolate } from '../e2e/gha-expr.mjs';

const ctx = (inputs = {}, failed = false, steps = {}) => ({ contexts: { inputs, secrets: { S: 'pw' }, github: { workspace: '/w' }, job: {}, steps }, status: { failed } });

test('|| gives the first truthy operand, && the first falsy one', () => {
  assert.equal(evaluate("inputs.a || 'dflt'", ctx({ a: '' })), 'dflt');
  assert.equal(evaluate("inputs.a || 'dflt'", ctx({ a: 'x' })), 'x');
  assert.equal(evaluate("inputs.m == 'baseline' && inputs.n || 'other'", ctx({ m: 'baseline', n: 'art' })), 'art');
  assert.equal(evaluate("inputs.m == 'baseline' && inputs.n || 'other'", ctx({ m: 'candidate', n: 'art' })), 'other');
  assert.equal(evaluate('inputs.a && inputs.b', ctx({ a: 0, b: 'x' })), 0);
});

test("== compares strings without case, mixed types as numbers; ! and parentheses", () => {
  assert.equal(evaluate("inputs.m == 'CANDIDATE'", ctx({ m: 'candidate' })), true);
  assert.equal(evaluate("inputs.n == '4'", ctx({ n: 4 })), true);
  assert.equal(evaluate("inputs.b != ''", ctx({ b: '' })), false);
  assert.equal(evaluate("!(inputs.b == '') && true", ctx({ b: 'x' })), true);
  assert.equal(evaluate("inputs['folio-url']", ctx({ 'folio-url': 'u' })), 'u');
  assert.equal(evaluate('inputs.missing', ctx()), null);
  // a skipped step has no outputs: its output is null, which equals ''
  assert.equal(evaluate("steps.p.outputs.results != ''", ctx({}, false, { p: { outputs: {} } })), false);
  assert.equal(evaluate('inputs.missing == 0', ctx()), true);
});

test('templates: one whole expression keeps its type, text around it makes a string', () => {
  assert.deepEqual(interpolate('${{ fromJSON(inputs.r) }}', ctx({ r: '["self-hosted", "linux"]' })), ['self-hosted', 'linux']);
  assert.equal(interpolate('${{ github.workspace }}/your-repository', ctx()), '/w/your-repository');
  assert.equal(interpolate('group ${{ inputs.a }} ${{ inputs.b }}', ctx({ a: 'x', b: 2 })), 'group x 2');
  assert.equal(interpolate('${{ secrets.S }}', ctx()), 'pw');
  assert.equal(interpolate('${{ format(\'{0}-{1}\', inputs.a, 3) }}', ctx({ a: 'x' })), 'x-3');
  assert.equal(interpolate(120, ctx()), 120);
});

test('if: success() is implied unless a status function is named', () => {
  assert.equal(condition(undefined, ctx({}, false)), true);
  assert.equal(condition(undefined, ctx({}, true)), false);
  assert.equal(condition("inputs.m == 'candidate'", ctx({ m: 'candidate' }, true)), false);
  assert.equal(condition('always()', ctx({}, true)), true);
  assert.equal(condition("always() && steps.p.outcome != 'skipped'", ctx({}, true, { p: { outcome: 'failure' } })), true);
  assert.equal(condition("${{ always() && steps.p.outcome != 'skipped' }}", ctx({}, true, { p: { outcome: 'skipped' } })), false);
  assert.equal(condition('failure()', ctx({}, true)), true);
});

test('what it does not know throws', () => {
  assert.throws(() => evaluate("hashFiles('x')", ctx()), /hashFiles\(\) is not known/);
  assert.throws(() => evaluate('vars.X', ctx()), /unknown context "vars"/);
  assert.throws(() => evaluate('inputs.a +', ctx()), /cannot read|expected|unexpected/);
});
