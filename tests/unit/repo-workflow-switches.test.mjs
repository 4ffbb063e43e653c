// A workflow is found through a registry (tools/workflows.mjs, lib/workflows/<name>.js), never
// by a switch on its name: no `workflow === 'search'`, `[ "$WORKFLOW" = search ]`, `case ... in
// search)` or `$(filter search,...)` in a file that is not the workflow's own. Such a switch is where
// a new workflow silently falls into another one's branch. The workflow's own files (each layer's
// file named after it) and the end-to-end suites that run one workflow may name it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workflowNames } from '../../tools/workflows.mjs';
import { switches, ownedBy } from './workflow-switches.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CODE = /\.(m?js|sh|mk)$|(^|\/)Makefile$/;
// Files a switch on the name may stay in until they move into the Node CLI; each entry must still
// hold one (so the list shrinks as they go).
export const PENDING = [];
// Not a workflow: stack/stack.sh's optional part `search` is the stack's OpenSearch (`stack.sh up
// search`), which the search workflow asks for by its make target `opensearch`.
const NOT_WORKFLOWS = ['stack/stack.sh'];
const SELF = ['tests/unit/repo-workflow-switches.test.mjs', 'tests/unit/workflow-switches.mjs'];

const tracked = () =>
  execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && CODE.test(f) && !f.includes('node_modules/') && !SELF.includes(f) && !NOT_WORKFLOWS.includes(f));
const readRepo = (f) => {
  try {
    return readFileSync(join(repo, f), 'utf8');
  } catch {
    return ''; // deleted in the work tree
  }
};

test('the patterns find each kind of switch, and not a mere mention', () => {
  const hits = switches(
    ['tools/x.mjs', 'tools/y.sh', 'mk/z.mk'],
    (f) =>
      ({
        'tools/x.mjs': "if (meta.workflow === 'search') a();\nconst b = 'search' !== wf;\nswitch (w) { case \"search\": }\nconst label = 'search runs'; // search",
        'tools/y.sh': 'if [ "$WORKFLOW" = search ]; then :; fi\ncase $WORKFLOW in search) x ;; esac\n  cico|search) ;;\necho search',
        'mk/z.mk': 'run: $(if $(filter search,$(WORKFLOW)),opensearch)\nifeq ($(WORKFLOW),search)\n# make run WORKFLOW=search',
      })[f],
    ['search'],
  );
  assert.equal(hits.length, 8, hits.join('\n'));
  assert.ok(!hits.some((h) => /label|echo search|# make run/.test(h)), hits.join('\n'));
  assert.ok(ownedBy('lib/search/summary.js', 'search') && ownedBy('lib/k6/cico-data.js', 'cico') && ownedBy('dashboards/src/cico-comparison.mjs', 'cico'));
  assert.ok(!ownedBy('tools/report/build.mjs', 'search') && !ownedBy('lib/k6/run.js', 'cico') && !ownedBy('lib/cico/api.js', 'search'));
});

test('no switch on a workflow name outside the registries and the workflow\'s own files', () => {
  const names = workflowNames();
  assert.ok(names.length >= 2, `workflows: ${names}`);
  const files = tracked();
  assert.ok(files.length > 50, `only ${files.length} files listed`);
  const found = switches(files, readRepo, names).filter((h) => !PENDING.some((p) => h.startsWith(`${p}:`)));
  assert.deepEqual(found, [], `look the workflow up in tools/workflows.mjs (or its descriptor) instead:\n${found.join('\n')}`);
});

test('every file still pending its move holds a switch (else drop it from PENDING)', () => {
  const names = workflowNames();
  for (const p of PENDING) assert.ok(switches([p], readRepo, names).length > 0, `${p} has no workflow switch left: remove it from PENDING`);
});
