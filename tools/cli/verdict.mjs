// `folio-perf verdict`: a finished run judged from all its samples in InfluxDB (every runner) and
// the baseline; exit 99 when a threshold fails or the comparison says regressed (tools/verdict/).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './args.mjs';
import { INFLUX_OPTION, influxFor } from './influx.mjs';
import { ROOT } from './stack-defaults.mjs';

export const command = {
  name: 'verdict',
  summary: "a finished run's pass/fail over all its samples and a baseline (exit 99: failed or regressed)",
  usage: '<testid> [--baseline <file>]... [--control speed|<metric>] [--alpha <a>] [other options]',
  about:
    "Judges thresholds.json's SLOs over every sample of the run in InfluxDB (all runners of a RUNNERS=N run together) and, with " +
    '--baseline, compares each judged metric with the baseline runs: regressed only beyond their spread. Prints a table; ' +
    'with GITHUB_STEP_SUMMARY set, appends it there in Markdown. Exit 0 passed, 99 failed or regressed, 1 bad input.',
  positionals: { min: 1, max: 1, what: 'test id' },
  options: {
    baseline: { type: 'string', multiple: true, value: '<file>', help: 'a baseline file (folio-perf baseline)' },
    control: {
      type: 'string',
      value: 'speed|<metric>',
      help:
        "judge every metric relative to the run's speed (speed: the median change of the other metrics, plus a row for the speed " +
        "itself) or to one metric the change cannot touch, e.g. 'transaction_duration{transaction:check-in}'",
    },
    alpha: { type: 'string', value: '<a>', help: "the baseline comparison's false-alarm rate, in (0, 0.5) (default 0.05)" },
    'min-delta-ms': { type: 'string', value: '<ms>', help: 'a change smaller than this is never a regression (default 2; 0 judges every change)' },
    instance: { type: 'string', value: '<i>', help: "one runner's samples only (RUNNERS=N tags them instance=<i>)" },
    thresholds: { type: 'string', value: '<file>', help: 'the SLOs (default thresholds.json)' },
    influx: INFLUX_OPTION,
  },
  async run({ values, positionals, env }) {
    const opts = { baselineFiles: values.baseline || [], control: values.control, instance: values.instance };
    if (values['min-delta-ms'] !== undefined) {
      opts.minDeltaMs = Number(values['min-delta-ms']);
      if (!(opts.minDeltaMs >= 0)) throw new UsageError(`--min-delta-ms ${values['min-delta-ms']} is not a number of milliseconds; fix: e.g. --min-delta-ms 2 (0: judge every change)`);
    }
    if (values.alpha !== undefined) {
      opts.alpha = Number(values.alpha);
      if (!(opts.alpha > 0 && opts.alpha < 0.5)) throw new UsageError(`--alpha ${values.alpha} is not a false-alarm rate; fix: a number in (0, 0.5), e.g. --alpha 0.05`);
    }
    opts.thresholdsFile = values.thresholds || join(ROOT, 'thresholds.json');
    opts.influxUrl = influxFor(values.influx, env);
    const { verdictRows, exitCodeFor } = await import('../verdict/index.mjs');
    const { renderVerdict, renderVerdictMarkdown } = await import('../verdict/render.mjs');
    const rows = await verdictRows(positionals[0], opts);
    process.stdout.write(renderVerdict(rows));
    // In GitHub Actions the same table goes to the job's summary page.
    if (env.GITHUB_STEP_SUMMARY && rows.length > 0) {
      appendFileSync(env.GITHUB_STEP_SUMMARY, `### folio-perf verdict: ${positionals[0]}\n\n${renderVerdictMarkdown(rows)}\n`);
    }
    return exitCodeFor(rows);
  },
};
