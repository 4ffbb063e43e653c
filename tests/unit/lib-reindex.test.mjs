// What a reindex progress answer means, for both generations of mod-search's reindex.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentProgress, legacyProgress } from '../../lib/search/reindex.js';

const st = (...pairs) => pairs.map(([entityType, status]) => ({ entityType, status }));

test('current generation: running stages, completed, failed', () => {
  assert.deepEqual(currentProgress([]), { state: 'running', stage: 'starting', detail: 'no entity yet' });
  assert.equal(currentProgress(null).stage, 'unknown');
  assert.equal(currentProgress(st(['INSTANCE', 'MERGE_IN_PROGRESS'], ['HOLDINGS', 'MERGE_IN_PROGRESS'], ['ITEM', 'MERGE_COMPLETED'])).stage, 'merge');
  assert.equal(currentProgress(st(['INSTANCE', 'MERGE_COMPLETED'], ['HOLDINGS', 'MERGE_COMPLETED'], ['ITEM', 'MERGE_COMPLETED'])).stage, 'staging');
  assert.equal(currentProgress(st(['INSTANCE', 'UPLOAD_IN_PROGRESS'], ['HOLDINGS', 'MERGE_COMPLETED'], ['ITEM', 'MERGE_COMPLETED'])).stage, 'upload');
  const done = currentProgress(st(['INSTANCE', 'UPLOAD_COMPLETED'], ['SUBJECT', 'UPLOAD_COMPLETED'], ['HOLDINGS', 'MERGE_COMPLETED'], ['ITEM', 'MERGE_COMPLETED']));
  assert.equal(done.state, 'completed');
  // An instance that only merged is not done: its upload is still to come.
  assert.equal(currentProgress(st(['INSTANCE', 'MERGE_COMPLETED'], ['ITEM', 'MERGE_COMPLETED'])).state, 'running');
  const failed = currentProgress(st(['INSTANCE', 'UPLOAD_FAILED'], ['ITEM', 'MERGE_COMPLETED']));
  assert.deepEqual([failed.state, failed.stage], ['failed', 'upload']);
});

test('legacy generation: publishing, indexing against the count before, done, failed', () => {
  assert.deepEqual(legacyProgress('In progress').state, 'running');
  assert.equal(legacyProgress('In progress').stage, 'publishing');
  assert.equal(legacyProgress('Id publishing failed').state, 'failed');
  assert.equal(legacyProgress('Id publishing cancelled').state, 'failed');
  assert.deepEqual(legacyProgress('Ids published', { count: 10, target: 100 }).stage, 'indexing');
  assert.equal(legacyProgress('Ids published', { count: 100, target: 100 }).state, 'completed');
  // No known total: a count that stopped growing for 3 polls.
  assert.equal(legacyProgress('Ids published', { count: 50, target: null, stablePolls: 2 }).state, 'running');
  assert.equal(legacyProgress('Ids published', { count: 50, target: null, stablePolls: 3 }).state, 'completed');
});
