// The end of every workflow's run (k6's handleSummary): the run-wide meta that the report and the
// baseline read, the workflow's own meta fields, the terminal tables and summary.json: in
// results/<testid>/ when the run has that directory, else results-<testid>-summary.json in the
// working directory (lib/summary.js summaryFile: a plain `k6 run` writes it too).

import exec from 'k6/execution';
import { summaryFile } from '../summary.js';

/**
 * @param {object} run the run from loadRun (VU 0: report, testid, resultsDir, resultsDirExists)
 * @param {object} p.cfg the resolved configuration
 * @param {(data) => object} p.meta the workflow's own meta fields (think time, phases, ...)
 */
export function makeHandleSummary(run, { cfg, meta: workflowMeta }) {
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
    const { renderText, summaryDocument } = run.report;
    // A generated test id can differ between this VU's init and the run's (k6 runs init per VU):
    // the directory named after this init's id is the run's only when the ids agree.
    const inDir = run.resultsDirExists && (Boolean(__ENV.RESULTS_DIR) || testid === run.testid);
    const path = summaryFile({ testid, dir: run.resultsDir, dirExists: inDir });
    // A run stopped by its setup (a refused login, a bad setting) measured nothing: a plain
    // `k6 run` leaves no loose file behind for it (a directory made for the run still gets one).
    const written = inDir || Boolean(data.setup_data);
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
      summaryPath: written ? path : null,
      ...(__ENV.INSTANCE ? { instance: __ENV.INSTANCE } : {}),
    };
    const out = { stdout: renderText(data, meta) };
    if (!written) {
      out.stdout += 'summary.json not written: the run stopped before its load\n';
      return out;
    }
    out[path] = JSON.stringify(summaryDocument(data, meta), null, 2);
    // The release report of this run is one command away (it files a loose summary under results/).
    if (!__ENV.INSTANCE) out.stdout += `Report: npx folio-perf report ${testid} [--influx <url of the InfluxDB k6 wrote to>]\n`;
    return out;
  };
}
