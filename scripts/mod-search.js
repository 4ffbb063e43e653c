// mod-search: PTF's multi-tenant search plan, as FOLIO's performance team ran it for the Lotus
// mod-search report.
//
// Question: how fast does mod-search answer the staff UI's searches (46 templates in 7 groups:
// authority, boolean, contributors, filter, keyword, subjects, title; regular, wildcard `w*` and
// wildcard-prefix `*w` queries) at 1 and 20 users, and how much slower while another tenant is
// being reindexed in the background?
//
// Load shape: each VU runs PTF's 7 fragments in a row, one request per template, no think time,
// terms unquoted as PTF sends them, limit=100, values from the query files (DATA). PROFILE:
// smoke (1 VU x 1 min per phase), demo (1 and 20 VUs x 1 min per phase), ptf (1 and 20 VUs x 60
// min per phase); VUS and DURATION override them. Each user count runs a baseline phase, then,
// only when REINDEX_TENANT names a tenant, a reindex phase during which one more VU reindexes
// that tenant (REINDEX_API=current|legacy) and records reindex_running / reindex_duration.
// Samples carry name (the report's label), group, kind, phase, vus; thresholds.json's search
// section sets p95 budgets per kind (k6 exits 99 when one fails); results/<testid>/summary.json
// holds the report tables.
//
// Where it lives: lib/workflows/search.js (profiles, settings, phases, sub-metrics, reindex
// scenarios), lib/k6/search.js (setup, iteration, reindex, handleSummary), lib/search/templates.js
// (the 46 templates), lib/search/data.js (query files; generator tools/search-data.mjs),
// lib/search/reindex.js (reindex APIs and progress), lib/search/summary.js (the tables), lib/metrics.js
// (metric and tag names), the runner lib/k6/run.js, the client lib/k6/folio.js.
//
// Run (from the repository root; a real reindex is disruptive: REINDEX_TENANT is never implied):
//   make search-data
//   FOLIO_PASSWORD=admin bin/k6 run -e PROFILE=smoke \
//     -e REINDEX_TENANT=fs09000001 scripts/mod-search.js
// or simply: make run WORKFLOW=search PROFILE=smoke

import { loadRun } from '../lib/k6/run.js';
import { searchWorkflow } from '../lib/k6/search.js';
import { search } from '../lib/workflows/search.js';

// Paths are relative to the repository root (DATA=csv:<dir>, THRESHOLDS); see check-in-check-out.js.
const read = (path) => open(path.startsWith('/') ? path : import.meta.resolve(`../${path}`));

const run = loadRun({ read, env: __ENV, workflow: search, vu: __VU });
const workflow = searchWorkflow(run, read);

export const options = run.options;
export const setup = workflow.setup;
export const handleSummary = workflow.handleSummary;
export function reindex(data) {
  workflow.reindex(data);
}
export default function (data) {
  workflow.iteration(data);
}
