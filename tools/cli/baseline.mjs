// `folio-perf baseline`: a baseline (format 2, tools/verdict/baseline-format.mjs) from finished runs
// of one system, each run's distribution read from InfluxDB; for `verdict --baseline` and BASELINE=.
import { readFileSync, writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { validateBaseline } from '../../lib/baseline.js';
import { ReportError } from '../report/errors.mjs';
import { INFLUX_OPTION, influxFor } from './influx.mjs';
import { readSummary } from './summaries.mjs';
import { ROOT } from './stack-defaults.mjs';

export const command = {
  name: 'baseline',
  summary: 'a baseline file from 2 or more finished runs of one system (for verdict --baseline)',
  usage: '<testid> [<testid> ...] [--out baselines/<name>.json] [--influx <url>]',
  about:
    'Reads each run (a test id, or its results/<testid>/summary.json) and its samples in InfluxDB and writes one baseline: ' +
    "every judged metric's quantiles per run, so the verdict sees the between-run spread. Give 2 or more runs of the same " +
    'system; with one the verdict says inconclusive.',
  positionals: { min: 1, what: 'test ids' },
  options: {
    out: { type: 'string', value: '<file>', help: 'where to write it (default baselines/<release>.json)' },
    influx: INFLUX_OPTION,
  },
  async run({ values, positionals }) {
    const runs = positionals.map((a) => ({ meta: readSummary(a).doc.meta }));
    const { buildBaseline, readRunSamples } = await import('../verdict/baseline-format.mjs');
    const { influxClient } = await import('../report/influx.mjs');
    let th = {};
    try {
      th = JSON.parse(readFileSync(join(ROOT, 'thresholds.json'), 'utf8'));
    } catch {
      // no slow APIs judged without thresholds.json; transactions still are
    }
    const client = influxClient(influxFor(values.influx));
    for (const r of runs) r.samples = await readRunSamples(client, r.meta.testid);
    const slowApis = Object.keys(th?.workflows?.[runs[0].meta.workflow]?.apis || {});
    const b = buildBaseline(runs, { slowApis, created: runs[runs.length - 1].meta.finishedAt || new Date().toISOString() });
    try {
      validateBaseline(b, b.workflow, 'baseline');
    } catch (e) {
      throw new ReportError(e.message);
    }
    const target = values.out || join('baselines', `${b.release}.json`);
    mkdirSync(dirname(target), { recursive: true });
    // Write then rename: a failed write never leaves half a baseline behind.
    writeFileSync(`${target}.tmp`, `${JSON.stringify(b, null, 1)}\n`);
    renameSync(`${target}.tmp`, target);
    const spread = b.spread.pct === null ? 'no between-run spread (one run)' : `between-run spread of p95 ${b.spread.pct.toFixed(1)} % (${b.spread.df} degrees of freedom)`;
    console.log(`baseline ${target}: ${b.workflow} runs ${b.runs.map((r) => r.testid).join(', ')} (release ${b.release}, profile ${b.profile}), ${Object.keys(b.transactions).length} transactions, ${Object.keys(b.metrics).length} metrics judged; ${spread}`);
    if (b.runs.length < 2) console.log('note: the verdict needs 2 or more runs in a baseline and says inconclusive with this one; fix: folio-perf baseline <testid> <testid> ...');
    for (const [k, m] of Object.entries(b.metrics)) {
      const thin = m.runs.filter((r) => r.n < 100);
      if (thin.length) console.log(`note: ${k} has under 100 samples in ${thin.map((r) => r.testid).join(', ')}: too few for its p95; fix: longer runs`);
    }
    return 0;
  },
};
