// `folio-perf verdict <testid>`: the run's pass/fail decided after the run, from every sample in
// InfluxDB (all runners of the testid together) and the baseline, where k6's own thresholds cannot
// decide it (several runners each judging only their own samples; a statistical comparison with a
// baseline's run-to-run spread).
//
// Two kinds of check, each in its own module, each giving rows of the same shape:
//   slo.mjs       thresholds.json's fixed budgets, evaluated exactly over the union of samples;
//   baseline.mjs  the statistical comparison with a baseline (regressed / ok / inconclusive).
//
// A row: { check: 'slo' | 'baseline', metric, stat, baseline, candidate, deltaPct, interval, verdict, note }
//   metric    e.g. 'transaction_duration{transaction:check-out}'
//   stat      e.g. 'p(95)' or 'rate'
//   baseline  the budget (slo) or the baseline's estimate (baseline); null when there is none
//   candidate this run's value
//   deltaPct  (candidate / baseline - 1) * 100, or null
//   interval  [lo, hi] of deltaPct at the configured confidence, or null
//   verdict   'ok' | 'failed' (slo) | 'regressed' | 'improved' | 'inconclusive' (baseline)
//   note      a short reason (what is missing for 'inconclusive')
//
// Exit code: 99 (k6's threshold code, the gate's contract) when any row is 'failed' or 'regressed'.
import { ReportError } from '../report/errors.mjs';
import { validTestId } from '../../lib/testid.js';
import * as slo from './slo.mjs';
import * as baseline from './baseline.mjs';

// Imported, not looked up: a check module that is missing or broken stops the verdict (a verdict
// without its SLO rows would pass a run nobody judged).
const CHECKS = [slo, baseline];

export const FAILING = new Set(['failed', 'regressed']);

/** The exit code for a set of rows: 99 when any row fails the run, else 0. */
export function exitCodeFor(rows) {
  return rows.some((r) => FAILING.has(r.verdict)) ? 99 : 0;
}

/**
 * Every row for testid. opts: { influxUrl, thresholdsFile, baselineFiles: [] }.
 * Each check module exports rows(testid, opts) -> Promise<row[]>; a check that has nothing to
 * judge (no baseline given) returns [].
 */
export async function verdictRows(testid, opts) {
  if (!validTestId(testid)) throw new ReportError(`"${testid}" is not a test id; fix: folio-perf verdict <testid> (ls results/)`);
  const out = [];
  for (const m of CHECKS) out.push(...(await m.rows(testid, opts)));
  return out;
}
