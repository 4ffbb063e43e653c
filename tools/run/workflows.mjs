// The run's view of a workflow. Its name, entry script and the make targets its run needs come
// from the workflows' registry (tools/workflows.mjs: lib/workflows/<name>.js and
// tools/report/workflows/<name>.mjs); what folio-perf run does around k6 for it comes from
// tools/run/workflows/<name>.mjs when the workflow has one, a file of optional parts:
//   dashboard           its Grafana dashboard's uid (the run prints the link)
//   minifolioArgs(ctx)  async, before minifolio starts: extra `minifolio up` arguments
//   afterReset(ctx)     async, after minifolio's seed and reset (local stack only)
//   checkLocal(ctx)     async, after k6 on the local stack: what the run left behind
//   checkRemote(ctx)    async, after k6 on your FOLIO: what a run that did not end cleanly left
// A workflow without that file runs with none of them.
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { workflowNames, scriptPath, REPO } from '../workflows.mjs';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'workflows');
const PARTS = { dashboard: 'string', minifolioArgs: 'function', afterReset: 'function', checkLocal: 'function', checkRemote: 'function' };

export { workflowNames };

/** The run parts of workflow `name`: { name, script (relative to the repository), ...parts }. */
export async function runWorkflow(name, dir = DIR) {
  const script = relative(REPO, await scriptPath(name));
  const file = join(dir, `${name}.mjs`);
  let parts = {};
  if (existsSync(file)) {
    parts = (await import(pathToFileURL(file).href)).default;
    const bad = parts && typeof parts === 'object' ? Object.entries(parts).filter(([k, v]) => typeof v !== PARTS[k]) : [['default', parts]];
    if (bad.length > 0) {
      throw new Error(`tools/run/workflows/${name}.mjs: ${bad.map(([k]) => k).join(', ')} is not one of its parts (${Object.keys(PARTS).join(', ')}); fix: see tools/run/workflows.mjs`);
    }
  }
  return { name, script, ...parts };
}
