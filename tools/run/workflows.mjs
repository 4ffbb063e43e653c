// The run's workflow registry: every file of tools/run/workflows/ is one workflow, named by its
// file (cico.mjs -> WORKFLOW=cico), so a new workflow is a new file here and nothing else of the
// run changes. Each exports default:
//   script          its k6 entry script
//   dashboard       its Grafana dashboard's uid
//   makeTargets     what `make` builds or starts for it besides run-deps (e.g. OpenSearch)
//   minifolioArgs(ctx)   async, before minifolio starts: extra `minifolio up` arguments
//   afterReset(ctx)      async, after minifolio's seed and reset (local stack only)
//   checkLocal(ctx)      async, after k6 on the local stack: what the run left behind
//   checkRemote(ctx)     async, after k6 on your FOLIO, when the run did not end cleanly
// All but script and dashboard are optional.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'workflows');

/** { name: workflow } for every file of tools/run/workflows/. */
export async function loadWorkflows(dir = DIR) {
  const out = {};
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.mjs')).sort()) {
    const name = f.slice(0, -'.mjs'.length);
    const wf = (await import(pathToFileURL(join(dir, f)).href)).default;
    if (!wf || typeof wf.script !== 'string' || typeof wf.dashboard !== 'string') {
      throw new Error(`tools/run/workflows/${f} does not export a workflow (default { script, dashboard, ... }); fix: see tools/run/workflows.mjs`);
    }
    out[name] = { name, makeTargets: [], ...wf };
  }
  return out;
}
