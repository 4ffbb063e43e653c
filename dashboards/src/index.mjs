// The dashboards the generator writes: each workflow's (dashboards/src/<name>.mjs exports
// DASHBOARDS, its dashboard modules: { UID, FILE, build }), found through the workflows' registry
// (tools/workflows.mjs), so a workflow's dashboards are generated, linted, checked for staleness
// and query-tested against InfluxDB without this file naming it. They are written to
// dashboards/generated/, the directory Grafana's provisioning mounts whole.
import { workflowNames, layer, LAYERS } from '../../tools/workflows.mjs';
import { toJSON } from './panels.mjs';

export const OUT_DIR = 'generated';

/** [{ workflow, UID, FILE, build }] of every workflow, in the registry's order. */
export async function dashboards() {
  const out = [];
  for (const name of workflowNames()) {
    const m = await layer(name, 'dashboards');
    if (!Array.isArray(m.DASHBOARDS) || m.DASHBOARDS.length === 0) throw new Error(`${LAYERS.dashboards(name)} exports no DASHBOARDS; fix: export const DASHBOARDS = [{ UID, FILE, build }]`);
    for (const d of m.DASHBOARDS) out.push({ workflow: name, UID: d.UID, FILE: d.FILE, build: d.build });
  }
  return out;
}

/** Map of file name (under dashboards/generated/) → file text, exactly as committed. */
export async function render() {
  const files = new Map();
  for (const d of await dashboards()) {
    if (files.has(d.FILE)) throw new Error(`two dashboards write ${d.FILE}; fix: give the ${d.workflow} one another FILE`);
    files.set(d.FILE, `${JSON.stringify(toJSON(d.build()), null, 2)}\n`);
  }
  return files;
}
