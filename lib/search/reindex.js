// The background reindex of the search workflow: which API starts it, and what a progress answer
// means (running, completed, failed) with a low-cardinality stage name for the `stage` tag. Pure;
// lib/k6/search.js sends the requests.
//
// Two generations of mod-search's reindex (mod-search: docs/features/reindex.md and, for the
// legacy one, README.md "Monitoring reindex process" before commit 26e91b8d):
// - current: POST /search/index/instance-records/reindex/full, then
//   GET /search/index/instance-records/reindex/status: one entry per entity type with its
//   status (MERGE_*, STAGING_*, UPLOAD_*); done when every entity finished its last step (upload;
//   holdings and items stop after the merge), failed when one step failed;
// - legacy: POST /search/index/inventory/reindex {"recreateIndex": true, "resourceName":
//   "instance"} -> job {id, jobStatus}; mod-inventory-storage publishes the ids
//   (GET /instance-storage/reindex/{id}: "In progress" -> "Ids published"), and the number indexed
//   so far is GET /search/instances?query=id="*"&limit=0's totalRecords.

import { atLeast, versionOf } from '../platforms.js';

export const REINDEX_APIS = Object.freeze(['current', 'legacy']);

/**
 * The reindex API of the target's mod-search: `current` from 4.0 (Ramsons; Sunflower runs 5.x,
 * Trillium 6.x), `legacy` before (the legacy endpoint of 4.0+ no longer takes `instance`). A
 * version the target did not say is taken as current. Returns {api, why}.
 */
export function reindexApiFor(modules) {
  const v = versionOf(modules, 'mod-search');
  if (!v) return { api: 'current', why: 'the target did not name its mod-search version' };
  return atLeast(v, '4.0.0') ? { api: 'current', why: `mod-search ${v} >= 4.0` } : { api: 'legacy', why: `mod-search ${v} < 4.0` };
}

export const CURRENT = Object.freeze({
  start: { method: 'POST', path: '/search/index/instance-records/reindex/full', body: {} },
  status: '/search/index/instance-records/reindex/status',
});
export const LEGACY = Object.freeze({
  start: { method: 'POST', path: '/search/index/inventory/reindex', body: { recreateIndex: true, resourceName: 'instance' } },
  job: '/instance-storage/reindex/{id}',
  count: '/search/instances',
  countQuery: 'id="*"',
});

// Entity types whose reindex ends with the merge (mod-search keeps no index of their own).
const MERGE_ONLY = ['holdings', 'holding', 'item', 'items'];

/**
 * The state of a current-generation reindex from the status endpoint's answer (an array, or an
 * object holding one; anything else is "unknown" and the poll goes on).
 * @returns {{state: 'running'|'completed'|'failed', stage: string, detail: string}}
 */
export function currentProgress(body) {
  const list = Array.isArray(body) ? body : body && Array.isArray(body.entities) ? body.entities : body && Array.isArray(body.statuses) ? body.statuses : null;
  if (!list) return { state: 'running', stage: 'unknown', detail: 'no status list' };
  if (list.length === 0) return { state: 'running', stage: 'starting', detail: 'no entity yet' };
  const statuses = list.map((e) => ({ entity: String((e && e.entityType) || '').toLowerCase(), status: String((e && e.status) || '').toUpperCase() }));
  const failed = statuses.find((s) => /FAIL/.test(s.status));
  if (failed) return { state: 'failed', stage: stageOf(failed.status), detail: `${failed.entity} ${failed.status}` };
  const done = statuses.every((s) => s.status === 'UPLOAD_COMPLETED' || (s.status === 'MERGE_COMPLETED' && MERGE_ONLY.includes(s.entity)));
  if (done) return { state: 'completed', stage: 'done', detail: `${statuses.length} entity types` };
  // The earliest step an unfinished entity is in (or waits for) names the stage.
  const order = ['merge', 'staging', 'upload'];
  let stage = 'upload';
  for (const s of statuses) {
    if (s.status === 'UPLOAD_COMPLETED' || (s.status === 'MERGE_COMPLETED' && MERGE_ONLY.includes(s.entity))) continue;
    const st = s.status === 'MERGE_COMPLETED' ? 'staging' : s.status === 'STAGING_COMPLETED' ? 'upload' : stageOf(s.status);
    if (st === 'unknown' || order.indexOf(st) < order.indexOf(stage)) stage = st;
  }
  return { state: 'running', stage, detail: statuses.map((s) => `${s.entity}=${s.status}`).join(' ') };
}

function stageOf(status) {
  if (status.startsWith('MERGE')) return 'merge';
  if (status.startsWith('STAGING')) return 'staging';
  if (status.startsWith('UPLOAD')) return 'upload';
  return 'unknown';
}

/**
 * The state of a legacy reindex: the job's jobStatus and the count indexed so far.
 * @param {string} jobStatus from GET /instance-storage/reindex/{id} (or the start answer)
 * @param {{count: number|null, target: number|null, stablePolls: number}} p count: totalRecords
 *   now; target: the count before the reindex started (what a full index holds) or null;
 *   stablePolls: polls in a row with the same count after the ids were published
 */
export function legacyProgress(jobStatus, { count = null, target = null, stablePolls = 0 } = {}) {
  const s = String(jobStatus || '');
  if (/fail|cancel/i.test(s)) return { state: 'failed', stage: 'publishing', detail: s };
  if (!/published/i.test(s)) return { state: 'running', stage: 'publishing', detail: s || 'no job status' };
  // Ids published: mod-search indexes them from Kafka; done when the index holds them all.
  if (typeof count === 'number' && typeof target === 'number' && target > 0 && count >= target) return { state: 'completed', stage: 'done', detail: `${count} of ${target} instances indexed` };
  // Without a known total, a count that stopped growing for 3 polls is taken as done.
  if ((target === null || target === 0) && stablePolls >= 3) return { state: 'completed', stage: 'done', detail: `${count} instances indexed (count stable)` };
  return { state: 'running', stage: 'indexing', detail: `${count === null ? '?' : count} of ${target || '?'} instances indexed` };
}
