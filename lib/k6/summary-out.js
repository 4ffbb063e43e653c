// The end of every workflow's run (k6's handleSummary): the run-wide meta that the report and the
// baseline read, the workflow's own meta fields, the terminal tables and results/<testid>/summary.json.

import exec from 'k6/execution';

/**
 * @param {object} run the run from loadRun (VU 0: report, testid, resultsDirExists)
 * @param {object} p.cfg the resolved configuration
 * @param {(data) => object} p.meta the workflow's own meta fields (think time, phases, ...)
 * @param {string} p.runCommand how to run it so that results/<testid>/ exists (for the hint)
 */
export function makeHandleSummary(run, { cfg, meta: workflowMeta, runCommand }) {
  function testidOf(data) {
    if (data.setup_data && data.setup_data.testid) return data.setup_data.testid;
    try {
      return exec.test.options.tags.testid;
    } catch (_) {
      return run.testid;
    }
  }

  return function handleSummary(data) {
    const testid = testidOf(data);
    const { renderText, summaryDocument, summaryPath } = run.report;
    const path = __ENV.INSTANCE ? `${run.resultsDir}/summary.json` : summaryPath(testid);
    const writable = run.resultsDirExists && testid === run.testid;
    const meta = {
      testid,
      workflow: run.workflow,
      release: cfg.release,
      target: cfg.target,
      profile: run.profile.name,
      steps: run.profile.steps,
      stepDuration: `${run.profile.durationMs / 1000}s`,
      ...workflowMeta(data),
      startedAt: data.setup_data ? data.setup_data.startedAt : null,
      // What was tested, recorded by setup() before the first user started (lib/record.js).
      record: (data.setup_data && data.setup_data.record) || null,
      finishedAt: new Date().toISOString(),
      webReport: __ENV.K6_WEB_DASHBOARD_EXPORT || null,
      summaryPath: writable ? path : null,
      ...(__ENV.INSTANCE ? { instance: __ENV.INSTANCE } : {}),
    };
    const out = { stdout: renderText(data, meta) };
    if (writable) out[path] = JSON.stringify(summaryDocument(data, meta), null, 2);
    else out.stdout += `summary.json not written: results/${testid}/ does not exist (k6 cannot create directories); fix: run through ${runCommand}, or set TESTID and mkdir -p results/$TESTID first\n`;
    return out;
  };
}
