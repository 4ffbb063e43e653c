// The GitHub Actions workflows: every action pinned by a full commit SHA with its tag in a comment,
// read-only token, a supported Node, and the perf gate going through `folio-perf verdict`
// (folio-gate.yml, the gate on your FOLIO: tests/unit/github-*.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = join(repo, '.github', 'workflows');
const files = readdirSync(dir).filter((f) => f.endsWith('.yml'));

test('the three workflows exist', () => {
  assert.deepEqual(files.sort(), ['ci.yml', 'folio-gate.yml', 'perf-gate.yml']);
});

for (const f of files) {
  const text = readFileSync(join(dir, f), 'utf8');
  test(`${f}: every action is pinned by commit SHA with its tag in a comment`, () => {
    const uses = [...text.matchAll(/^\s*-?\s*uses:\s*(.+)$/gm)].map((m) => m[1].trim());
    assert.ok(uses.length >= 3, `${f} uses ${uses.length} actions`);
    for (const u of uses) assert.match(u, /^[\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/, `${f}: "${u}"`);
    // the current majors (Node 24 actions)
    for (const [action, major] of [['actions/checkout', 7], ['actions/setup-go', 7], ['actions/setup-node', 7]]) {
      const u = uses.find((x) => x.startsWith(`${action}@`));
      assert.ok(u, `${f} uses ${action}`);
      assert.match(u, new RegExp(`# v${major}\\.`), `${f}: ${action} at v${major}`);
    }
  });
  test(`${f}: read-only token and Node 24`, () => {
    assert.match(text, /^permissions:\n {2}contents: read\n/m);
    assert.doesNotMatch(text, /write-all|: write\b/);
    assert.match(text, /node-version: "24"/);
  });
}

test('perf-gate.yml runs the statistical gate: make perf-gate -> folio-perf verdict, the job summary', () => {
  const wf = readFileSync(join(dir, 'perf-gate.yml'), 'utf8');
  assert.match(wf, /run: make perf-gate/);
  const mk = readFileSync(join(repo, 'Makefile'), 'utf8');
  assert.match(mk, /^perf-gate:.*\n\t@tools\/perf-gate\.sh$/m);
  const sh = readFileSync(join(repo, 'tools', 'perf-gate.sh'), 'utf8');
  assert.match(sh, /folio-perf\.mjs verdict "\$cand_id" --baseline "\$baseline"/);
  assert.match(sh, /folio-perf\.mjs baseline "\$\{summaries\[@\]\}"/);
  // A pull request's baseline runs are made by its base commit (a full clone to have it).
  assert.match(wf, /fetch-depth: 0/);
  assert.match(wf, /GATE_BASE_REF: \$\{\{ github\.event_name == 'pull_request' && github\.event\.pull_request\.base\.sha/);
  const cli = readFileSync(join(repo, 'tools', 'cli', 'verdict.mjs'), 'utf8');
  assert.match(cli, /env\.GITHUB_STEP_SUMMARY/);
});
