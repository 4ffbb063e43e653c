// What every workflow's end-of-run summary has besides its own tables: the thresholds that are
// real rules and their outcome, the check totals, the lines that close the terminal summary, and
// the summary.json document around the tables (results/<testid>/summary.json, read by
// `folio-perf report`, `baseline`, `verdict`). Pure. The tables are the workflow's
// (lib/<workflow>/summary.js).

import { NOOP, NOOP_RATE, NOOP_COUNT } from './thresholds.js';

export const SUMMARY_FORMAT = 'folio-perf-summary/1';

// Thresholds that are real rules (not the summary's no-op ones), with their outcome.
export function thresholdResults(data) {
  const out = [];
  for (const [key, m] of Object.entries(data.metrics || {})) {
    for (const [expr, r] of Object.entries((m && m.thresholds) || {})) {
      const e = expr.replace(/\s/g, '');
      if (e === NOOP || e === NOOP_RATE || e === NOOP_COUNT) continue;
      out.push({ metric: key, expr, ok: !!(r && r.ok) });
    }
  }
  return out.sort((a, b) => Number(a.ok) - Number(b.ok) || a.metric.localeCompare(b.metric));
}

export function checkTotals(data) {
  let passes = 0;
  let fails = 0;
  const failing = [];
  const walk = (g) => {
    if (!g) return;
    for (const c of g.checks || []) {
      passes += c.passes || 0;
      fails += c.fails || 0;
      if (c.fails) failing.push({ name: c.name, fails: c.fails, passes: c.passes });
    }
    for (const sub of g.groups || []) walk(sub);
  };
  walk(data.root_group);
  return { passes, fails, failing };
}

// The terminal summary's closing lines: checks, thresholds (each failed one named), where the
// summary.json is.
export function footerLines(data, meta) {
  const th = thresholdResults(data);
  const ch = checkTotals(data);
  const out = [];
  const total = ch.passes + ch.fails;
  out.push(`Checks: ${ch.passes}/${total} passed${ch.fails ? `; failing: ${ch.failing.slice(0, 5).map((c) => `${c.name} (${c.fails})`).join('; ')}` : ''}`);
  const failed = th.filter((t) => !t.ok);
  out.push(`Thresholds: ${th.length - failed.length}/${th.length} passed`);
  for (const t of failed) out.push(`  FAILED ${t.metric} ${t.expr}`);
  if (meta.summaryPath) out.push(`Summary: ${meta.summaryPath}`);
  return out;
}

/**
 * The JSON written to results/<testid>/summary.json: run metadata, the workflow's tables, the
 * thresholds and checks, and k6's own data (without setup_data, which holds the test-data pools).
 */
export function summaryDocument(data, meta, tables) {
  const k6 = {};
  for (const [k, v] of Object.entries(data)) if (k !== 'setup_data') k6[k] = v;
  return { format: SUMMARY_FORMAT, meta, tables, thresholds: thresholdResults(data), checks: checkTotals(data), k6 };
}

export function summaryPath(testid) {
  return `results/${testid}/summary.json`;
}

// k6 cannot create directories. A run whose directory nobody made (a plain `k6 run`) writes its
// summary beside the script's working directory instead, under a name that carries the test id, as
// a k6 user expects handleSummary's files; `folio-perf report <testid>` files it (and k6's HTML
// report of the same name, when K6_WEB_DASHBOARD_EXPORT pointed there) into results/<testid>/.
export function looseSummaryPath(testid) {
  return `results-${testid}-summary.json`;
}
export function looseWebReportPath(testid) {
  return `results-${testid}-k6-report.html`;
}

/**
 * Where handleSummary writes summary.json: into dir when it exists (folio-perf run and the compose
 * k6 service make results/<testid>/; RESULTS_DIR names one), else the loose file in the working
 * directory.
 */
export function summaryFile({ testid, dir, dirExists }) {
  return dirExists ? `${dir}/summary.json` : looseSummaryPath(testid);
}
