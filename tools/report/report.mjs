// `folio-perf report <testid>`: results/<testid>/report.md and report.html from summary.json and
// InfluxDB. Reads everything first, renders, then writes both pages at once.
import { join } from 'node:path';
import { readRun, writeAtomically } from './run-files.mjs';
import { influxClient } from './influx.mjs';
import { gather } from './gather.mjs';
import { moduleVersions } from './module-versions.mjs';
import { buildReport } from './build.mjs';
import { tools } from '../workflows.mjs';
import { renderMarkdown } from './render-md.mjs';
import { renderHtml } from './render-html.mjs';

/**
 * @param {string} testid
 * @param {{influxUrl: string, folioUrl?: string, tenant?: string, moduleLogs?: string, resultsDir?: string}} opts
 */
export async function writeReport(testid, { influxUrl, folioUrl, tenant, moduleLogs, resultsDir = 'results' }) {
  const { dir, summary } = readRun(testid, resultsDir);
  const wf = await tools(summary.meta.workflow);
  const client = influxClient(influxUrl);
  const data = await gather(client, summary, wf, { dir, moduleLogs });
  const versions = await moduleVersions(folioUrl, summary.meta.tenant || tenant);
  const doc = buildReport(summary, data, versions, wf);
  const md = join(dir, 'report.md');
  const html = join(dir, 'report.html');
  writeAtomically({ [md]: renderMarkdown(doc), [html]: renderHtml(doc) });
  return { md, html, doc };
}
