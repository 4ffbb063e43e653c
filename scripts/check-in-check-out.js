// Check-in / check-out (CICO), as FOLIO's performance team ran it for every release report.
//
// Question: does check-out (and check-in) stay within its SLO, and within tolerance of the
// baseline run, at 1, 5, 8 and 20 library staff working the circulation desk at once?
//
// Load shape: each VU replays the staff UI's Orchid call sequence (folio-org/perf-testing :
// workflows-scripts/circulation/check-in-check-out/Orchid/circulation_checkInCheckOut_orchid.jmx):
// 43 % check-in, 57 % check-out (DISTRIBUTION), with PTF's think times (THINK). PROFILE picks
// the user counts: smoke (1 VU, 1 min), demo (1/5/8/20 VUs x 1 min), ptf (1/5/8/20 x 30 min),
// longevity (20 VUs, 24 h), knee (1 -> 25 VUs); VUS and DURATION override them. The run's
// thresholds come from thresholds.json, plus BASELINE=baselines/<name>.json for regressions
// (k6 exits 99 when one fails). Samples carry testid/workflow/release/target; teardown checks in
// what the run left checked out; summary.json holds the report tables (results/<testid>/, or
// results-<testid>-summary.json in the working directory when k6 runs alone: lib/summary.js).
//
// Run (from the repository root, against native minifolio):
//   FOLIO_PASSWORD=admin FOLIO_DB_PASSWORD=folio \
//     bin/k6 run -o influxdb-lp=http://127.0.0.1:58086/k6 -e PROFILE=smoke scripts/check-in-check-out.js
// or simply: make run PROFILE=smoke
// With the k6 you have and your FOLIO (DATA=csv:<dir>: no extension needed; docs/stock-k6.md):
//   k6 run -o influxdb=http://127.0.0.1:8086/k6 scripts/check-in-check-out.js
//
// Where it lives: lib/workflows/cico.js (profiles, settings, thresholds inputs, report module),
// lib/k6/cico.js (setup, iteration, teardown, handleSummary), lib/cico/transactions.js (the call
// sequences), lib/cico/api.js (each call and its rule), lib/cico/summary.js (the tables), the runner
// lib/k6/run.js, the client lib/k6/folio.js.

import { loadRun } from '../lib/k6/run.js';
import { cicoWorkflow } from '../lib/k6/cico.js';
import { cico } from '../lib/workflows/cico.js';

// Paths are given relative to the repository root (BASELINE, DATA=csv:<dir>, THRESHOLDS); this
// script lives one level below it. import.meta.resolve pins them to this file, whatever k6's
// future open() semantics.
const read = (path) => open(path.startsWith('/') ? path : import.meta.resolve(`../${path}`));

const run = loadRun({ read, env: __ENV, workflow: cico, vu: __VU });
const workflow = cicoWorkflow(run, read);

export const options = run.options;
export const setup = workflow.setup;
export const teardown = workflow.teardown;
export const handleSummary = workflow.handleSummary;
export default function (data) {
  workflow.iteration(data);
}
