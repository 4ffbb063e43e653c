// `folio-perf report`: results/<testid>/report.md and report.html (tools/report/).
import { INFLUX_OPTION, influxFor } from './influx.mjs';

export const command = {
  name: 'report',
  summary: 'results/<testid>/report.md and report.html: the release report of a finished run',
  usage: '<testid> [--against <testid|baseline>] [--influx <url>] [--module-logs <dir>]',
  about:
    "FOLIO's release report of one run, from its summary.json and its samples in InfluxDB: findings first (a " +
    'Summary whose every figure cites its table row), the verdict, what was tested (recorded at the run\'s start: ' +
    'the target is not asked), response times per user count, slow APIs, errors, module CPU and memory, the ' +
    'database section and charts; with --against, the previous release beside it in the same tables.',
  positionals: { min: 1, max: 1, what: 'test id' },
  options: {
    against: { type: 'string', value: '<testid|baseline>', help: "the previous release: a run's test id, or a baseline (baselines/<name>.json, its name or a path)" },
    influx: INFLUX_OPTION,
    'module-logs': { type: 'string', value: '<dir>', help: "a real FOLIO's module log files (*.log), for RMB's without-index line counts" },
  },
  async run({ values, positionals, env }) {
    const { writeReport } = await import('../report/report.mjs');
    const r = await writeReport(positionals[0], { influxUrl: influxFor(values.influx, env), moduleLogs: values['module-logs'], against: values.against });
    console.log(`report: ${r.md}, ${r.html}`);
    return 0;
  },
};
