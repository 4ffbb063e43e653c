#!/usr/bin/env node
// The workflows' registry for everything outside k6 (report, compare, merge-summary, verdict, the
// k8s and dashboard generators, make): a workflow is the files named after it in each layer, and
// a layer that must know every workflow asks here instead of naming one.
//
//   lib/workflows/<name>.js           its descriptor (what the k6 runner knows; `script` names
//                                     its entry script under scripts/)
//   tools/report/workflows/<name>.mjs what the Node tools need: report sections, comparison rows,
//                                     units, how its runners' summaries merge, its k8s TestRun,
//                                     the make targets a run needs
//   dashboards/src/<name>.mjs         its Grafana dashboards
//
// The names are the descriptors found under lib/workflows/: adding a workflow is adding its files,
// no shared file names it (tests/unit/workflows-fixture.test.mjs adds one to a copy of the
// repository and follows it through every layer). An unknown name, or a workflow missing one of its
// files, is a one-line error with the fix.
//
//   node tools/workflows.mjs list            the names, one a line
//   node tools/workflows.mjs needs [<name>]  the make targets a run of <name> (default: the default
//                                            workflow) needs beyond the stack
//   node tools/workflows.mjs script <name>   its entry script, relative to the repository
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ReportError } from './report/errors.mjs';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
// What `make run` runs without WORKFLOW.
export const DEFAULT_WORKFLOW = 'cico';

// Each layer's file of a workflow, relative to the repository.
export const LAYERS = Object.freeze({
  descriptor: (n) => `lib/workflows/${n}.js`,
  tools: (n) => `tools/report/workflows/${n}.mjs`,
  dashboards: (n) => `dashboards/src/${n}.mjs`,
});

/** The workflows' names: the descriptors under lib/workflows/, sorted. */
export function workflowNames() {
  return readdirSync(join(REPO, 'lib', 'workflows'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => f.slice(0, -3))
    .sort();
}

/** Throws a one-line error unless `name` is a workflow. */
export function known(name) {
  const names = workflowNames();
  if (!names.includes(name)) throw new ReportError(`unknown workflow "${name}"; fix: use one of ${names.join(', ')} (or add lib/workflows/${name}.js and its files in the other layers)`);
  return name;
}

/** The path of one layer's file of `name`; throws when the workflow lacks it. */
export function layerPath(name, layer) {
  const path = join(REPO, LAYERS[layer](known(name)));
  if (!existsSync(path)) throw new ReportError(`workflow ${name} has no ${LAYERS[layer](name)}; fix: add it (every workflow has one file per layer: ${Object.values(LAYERS).map((f) => f(name)).join(', ')})`);
  return path;
}

/** The module of one layer of `name` (its exports), loaded when first asked for. */
export async function layer(name, which) {
  return import(pathToFileURL(layerPath(name, which)).href);
}

/** The descriptor object lib/workflows/<name>.js exports under the workflow's name. */
export async function descriptor(name) {
  const m = await layer(name, 'descriptor');
  const d = m[name];
  if (!d || d.name !== name) throw new ReportError(`${LAYERS.descriptor(name)} exports no descriptor named ${name}; fix: export const ${name} = { name: '${name}', ... }`);
  return d;
}

/** The workflow's tools module (tools/report/workflows/<name>.mjs). */
export async function tools(name) {
  return layer(name, 'tools');
}

/** The entry script of `name`, as an absolute path (descriptor.script is relative to the repository). */
export async function scriptPath(name) {
  const d = await descriptor(name);
  const path = join(REPO, d.script || `scripts/${name}.js`);
  if (!existsSync(path)) throw new ReportError(`workflow ${name}'s script ${relative(REPO, path)} is missing; fix: restore it or correct "script" in ${LAYERS.descriptor(name)}`);
  return path;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [cmd, name] = process.argv.slice(2);
  try {
    if (cmd === 'list') console.log(workflowNames().join('\n'));
    else if (cmd === 'needs') console.log(((await tools(name || DEFAULT_WORKFLOW)).needs || []).join(' '));
    else if (cmd === 'script' && name !== undefined) console.log(relative(REPO, await scriptPath(name)));
    else throw new ReportError('usage: node tools/workflows.mjs list | needs [<name>] | script <name>');
  } catch (e) {
    if (!(e instanceof ReportError)) throw e;
    console.error(`folio-perf: ${e.message}`);
    process.exit(1);
  }
}
