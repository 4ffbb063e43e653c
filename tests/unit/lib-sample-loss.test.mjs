// tools/run/sample-loss.mjs's verdict on a run's sample-loss.json (folio-perf run fails the run for
// `lost` and `unknown` alike under SAMPLE_LOSS=fail; tests/e2e/influx-loss.test.mjs runs it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeLoss } from '../../tools/run/sample-loss.mjs';

test('a loss nobody counted is unknown, never none', () => {
  const f = 'results/x/sample-loss.json';
  assert.equal(judgeLoss(null, f).verdict, 'unknown');
  assert.match(judgeLoss(null, f).text, /results\/x\/sample-loss\.json is missing or unreadable/);
  assert.equal(judgeLoss({ output: 'x' }, f).verdict, 'unknown', 'no counts');
  assert.equal(judgeLoss({ samples: 10, written: 10, dropped: 0, share: 0 }, f).verdict, 'ok');
  assert.equal(judgeLoss({ samples: 10, written: 9, dropped: 1, share: 0.1 }, f).verdict, 'lost');
  // RUNNERS=N: the files found against the runners that ran
  const two = { samples: 10, written: 10, dropped: 0, share: 0, runnersExpected: 2 };
  assert.equal(judgeLoss({ ...two, runners: 2 }, f).verdict, 'ok');
  assert.equal(judgeLoss({ ...two, runners: 1 }, f).verdict, 'unknown');
  assert.match(judgeLoss({ ...two, runners: 0 }, f).text, /0 of 2 runners wrote their sample-loss file/);
});
