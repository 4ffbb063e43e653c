// `folio-perf report`: results/<testid>/report.md and report.html (tools/report/).
import { INFLUX_OPTION, influxFor } from './influx.mjs';
import { UsageError } from './args.mjs';
import { setting } from '../defaults.mjs';
import { isLoopbackHost, LOCAL_ONLY_FIX } from '../../lib/loopback.js';

export const command = {
  name: 'report',
  summary: 'results/<testid>/report.md and report.html: the release report of a finished run',
  usage: '<testid> [--influx <url>] [--folio-url <url>] [--tenant <t>] [--module-logs <dir>]',
  about:
    "The tables of FOLIO's release reports for one run, from its summary.json and its samples in InfluxDB: response " +
    'times per user count, slow APIs, errors, module CPU and memory, the database section and charts.',
  positionals: { min: 1, max: 1, what: 'test id' },
  options: {
    influx: INFLUX_OPTION,
    'folio-url': { type: 'string', value: '<url>', help: 'the FOLIO whose module versions the report lists (default FOLIO_URL; none: no versions table)' },
    tenant: { type: 'string', value: '<t>', help: 'its tenant (default FOLIO_TENANT, else the stack\'s tenant)' },
    'module-logs': { type: 'string', value: '<dir>', help: "a real FOLIO's module log files (*.log), for RMB's without-index line counts" },
  },
  async run({ values, positionals, env }) {
    const { writeReport } = await import('../report/report.mjs');
    const folioUrl = values['folio-url'] || env.FOLIO_URL;
    // The module versions are read from that FOLIO: never off this machine inside a test or the demo.
    if (folioUrl && env.FP_LOCAL_ONLY === '1' && !isLoopbackHost(folioUrl.replace(/^[a-z]+:\/\//i, '').split('/')[0])) {
      throw new UsageError(`--folio-url/FOLIO_URL ${folioUrl} is not on this machine; fix: ${LOCAL_ONLY_FIX}`);
    }
    const r = await writeReport(positionals[0], {
      influxUrl: influxFor(values.influx, env),
      folioUrl,
      tenant: values.tenant || env.FOLIO_TENANT || setting('FP_TENANT'),
      moduleLogs: values['module-logs'],
    });
    console.log(`report: ${r.md}, ${r.html}`);
    return 0;
  },
};
