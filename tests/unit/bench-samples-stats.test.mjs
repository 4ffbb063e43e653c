// bench-samples' extrapolation from a short run to the profile's real length.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extrapolate, renderSamplesTable } from '../../tools/bench-samples-stats.mjs';

test('a short run made as long as the real one, step by step', () => {
  // ptf: 4 steps of 60 s measured, 30 min each in reality; 20 users wrote 6,000 of the 12,000 points
  const r = extrapolate({ written: 12000, bytes: 24000, loadSeconds: 240, steps: [1, 5, 8, 20], realStepSeconds: 1800, perStep: { 20: 6000 } });
  assert.equal(r.pointsPerSecond, 50);
  assert.equal(r.peakPointsPerSecond, 100);
  assert.equal(r.bytesPerPoint, 2);
  assert.equal(r.realHours, 2);
  assert.equal(r.realPoints, 12000 * 30);
  assert.equal(r.realBytes, 24000 * 30);
  assert.equal(r.mbPerHourAtPeak, (100 * 3600 * 2) / 1048576);
  const text = renderSamplesTable([{ name: 'ptf', ...r }], { seconds: 60, date: '2026-11-26' });
  assert.match(text, /extrapolated to the real length: an estimate/);
  assert.match(text, /\| ptf \| 50\.0 \| 100\.0 \| 2\.00 \| 0\.7 \| 2\.0 h \| 0\.4 M \| 1 MB \|/);
});
