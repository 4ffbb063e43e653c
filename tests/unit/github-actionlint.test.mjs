// actionlint (bin/actionlint, make actionlint; settings in .github/actionlint.yaml) over every
// workflow of .github/workflows/, and over the caller that docs/gate.md tells users to copy, checked
// against folio-gate.yml's declared inputs and secrets as a local call. Then what actionlint does
// not check: no `${{ }}` pasted into a `run:` script (inputs reach scripts through the environment,
// so a value can never become shell code), and every step of folio-gate.yml calling a command that
// tools/gate/gate.mjs has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const actionlint = join(process.env.FP_BIN || join(repo, 'bin'), 'actionlint');
const dir = join(repo, '.github', 'workflows');
const files = readdirSync(dir).filter((f) => f.endsWith('.yml')).sort();

function lint(cwd, args = []) {
  const r = spawnSync(actionlint, ['-no-color', ...args], { cwd, encoding: 'utf8' });
  if (r.error) throw new Error(`${actionlint}: ${r.error.message}; fix: make actionlint`);
  return r;
}

test('actionlint: every workflow is clean', () => {
  assert.deepEqual(files, ['ci.yml', 'folio-gate.yml', 'perf-gate.yml']);
  const r = lint(repo, files.map((f) => join('.github', 'workflows', f)));
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.equal(r.stdout, '');
});

test('actionlint finds a mistake (the suite can fail)', () => {
  const r = spawnSync(actionlint, ['-no-color', '-'], { cwd: repo, input: 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ inputs.nope }}\n', encoding: 'utf8' });
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /property "nope" is not defined/);
});

// The caller in docs/gate.md, with its `uses:` pointing at this checkout's workflow, in a copy of
// .github/ (actionlint checks a local reusable workflow's inputs and secrets; a remote one it cannot).
const docsCaller = () => {
  const md = readFileSync(join(repo, 'docs', 'gate.md'), 'utf8');
  return [...md.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes('/.github/workflows/folio-gate.yml@'));
};
function lintCaller(text) {
  const tmp = mkdtempSync(join(tmpdir(), 'fp-actionlint-'));
  try {
    mkdirSync(join(tmp, '.git'));
    cpSync(join(repo, '.github'), join(tmp, '.github'), { recursive: true });
    writeFileSync(join(tmp, '.github', 'workflows', 'caller.yml'), text.replace('<owner>/folio-perf/.github/workflows/folio-gate.yml@<ref>', './.github/workflows/folio-gate.yml'));
    return lint(tmp, [join('.github', 'workflows', 'caller.yml')]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

test("docs/gate.md's caller calls folio-gate.yml with inputs and secrets it declares", () => {
  const caller = docsCaller();
  assert.ok(caller, 'docs/gate.md has the caller block');
  const r = lintCaller(caller);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  // and the check bites: a misspelt input, a missing required secret
  assert.match(lintCaller(caller.replace('db-user:', 'db-usr:')).stdout, /input "db-usr" is not defined/);
  assert.match(lintCaller(caller.replace(/^ +FOLIO_PASSWORD: .*\n/m, '')).stdout, /secret "FOLIO_PASSWORD" is required/);
});

for (const f of files) {
  test(`${f}: no expression pasted into a run: script`, () => {
    const wf = parse(readFileSync(join(dir, f), 'utf8'));
    for (const [name, job] of Object.entries(wf.jobs)) {
      for (const s of job.steps || []) if (s.run) assert.doesNotMatch(s.run, /\$\{\{/, `${f} ${name}: "${s.run}"`);
    }
  });
}

test('folio-gate.yml: each run step is a command of tools/gate/gate.mjs, every input reaches the job', () => {
  const wf = parse(readFileSync(join(dir, 'folio-gate.yml'), 'utf8'));
  const job = wf.jobs.gate;
  const runs = job.steps.filter((s) => s.run).map((s) => s.run.trim());
  assert.deepEqual(runs, ['node tools/gate/gate.mjs prepare', 'node tools/gate/gate.mjs run', 'node tools/gate/gate.mjs cleanup']);
  const usage = spawnSync(process.execPath, [join(repo, 'tools', 'gate', 'gate.mjs')], { encoding: 'utf8' });
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /gate\.mjs prepare\|cleanup\|run /);
  // Every input is used: in the job's env, or by a step or the job itself.
  const text = readFileSync(join(dir, 'folio-gate.yml'), 'utf8').replace(/^ *description: .*$/gm, '');
  for (const k of Object.keys(wf.on.workflow_call.inputs)) assert.match(text, new RegExp(`inputs\\.${k}\\b(?!-)`), `input ${k} is used`);
  // The passwords only in the step that runs the load.
  const withSecrets = job.steps.filter((s) => JSON.stringify(s).includes('secrets.'));
  assert.deepEqual(withSecrets.map((s) => s.run), ['node tools/gate/gate.mjs run']);
  assert.doesNotMatch(JSON.stringify(job.env), /secrets\./);
});
