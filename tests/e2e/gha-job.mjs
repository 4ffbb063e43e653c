// One job of a GitHub Actions workflow, run on this machine as a runner runs it, for the tests that
// must follow a workflow as written (tests/e2e/folio-gate.test.mjs): the workflow's declared inputs
// and secrets (defaults, types, required ones), its `env:`, `defaults.run`, every step's `if:` and
// expressions (tests/e2e/gha-expr.mjs), each `run:` script by bash as the runner calls it
// (`bash --noprofile --norc -eo pipefail`), GITHUB_OUTPUT, GITHUB_ENV and GITHUB_STEP_SUMMARY per
// step, and the few actions the workflows use, done for real on local directories:
//   actions/checkout           the repository's directory (opts.checkouts[owner/name]) at `path`
//   actions/setup-go, setup-node   the toolchains already on this machine (checked)
//   actions/upload-artifact    the files copied into opts.artifacts/<run id>/<name>
//   actions/download-artifact  the same directory copied to `path` (`run-id` names the run)
// An action or expression it does not know throws: the test fails rather than skip a step.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { condition, interpolate } from './gha-expr.mjs';

export const loadWorkflow = (path) => parse(readFileSync(path, 'utf8'));

/** The inputs a `workflow_call` gets: given ones typed, defaults filled in; unknown or missing throw. */
export function callInputs(workflow, given) {
  const declared = workflow.on.workflow_call.inputs || {};
  for (const k of Object.keys(given)) if (!declared[k]) throw new Error(`input ${k} is not declared by the workflow`);
  const out = {};
  for (const [k, d] of Object.entries(declared)) {
    let v = Object.hasOwn(given, k) ? given[k] : d.default;
    if (v === undefined) {
      if (d.required) throw new Error(`required input ${k} is not given`);
      v = d.type === 'number' ? 0 : d.type === 'boolean' ? false : '';
    }
    if (d.type === 'number') {
      v = Number(v);
      if (Number.isNaN(v)) throw new Error(`input ${k} is not a number: ${given[k]}`);
    } else if (d.type === 'boolean') v = v === true || v === 'true';
    else v = String(v);
    out[k] = v;
  }
  return out;
}

/** The secrets a `workflow_call` gets: undeclared or missing required ones throw. */
export function callSecrets(workflow, given) {
  const declared = workflow.on.workflow_call.secrets || {};
  for (const k of Object.keys(given)) if (!declared[k]) throw new Error(`secret ${k} is not declared by the workflow`);
  for (const [k, d] of Object.entries(declared)) if (d.required && !given[k]) throw new Error(`required secret ${k} is not given`);
  return { ...given };
}

// GITHUB_OUTPUT / GITHUB_ENV: name=value lines and name<<DELIMITER blocks.
function readKeyValues(file) {
  const out = {};
  if (!existsSync(file)) return out;
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]);
    if (heredoc) {
      const body = [];
      for (i += 1; i < lines.length && lines[i] !== heredoc[2]; i++) body.push(lines[i]);
      out[heredoc[1]] = body.join('\n');
    } else if (lines[i].includes('=')) out[lines[i].slice(0, lines[i].indexOf('='))] = lines[i].slice(lines[i].indexOf('=') + 1);
  }
  return out;
}

function runScript(script, { cwd, env, timeoutMs, dir }) {
  const file = join(dir, `step-${Date.now()}-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, script);
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n[gha-job: the step ran past ${timeoutMs / 1000}s and was killed]\n`;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? 128, signal, output });
    });
  });
}

// The actions this runner knows, by name (without @ref): (with, job) -> { output } or throws.
const ACTIONS = {
  'actions/checkout'(w, job) {
    const repo = w.repository || job.github.repository;
    const src = job.opts.checkouts[repo];
    if (!src) throw new Error(`actions/checkout of ${repo}: no directory for it in the test's checkouts (${Object.keys(job.opts.checkouts).join(', ')})`);
    // An expression for the ref that gives nothing would check out the default branch: refused here.
    if (Object.hasOwn(w, 'ref') && !w.ref) throw new Error(`actions/checkout of ${repo}: its ref's expression gave "${w.ref}"`);
    const ref = w.ref || job.github.sha;
    const dest = join(job.workspace, w.path || '');
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dirname(dest), { recursive: true });
    symlinkSync(src, dest);
    return { output: `checked out ${repo}@${ref} into ${w.path || '.'} (the test's directory ${src})` };
  },
  'actions/setup-go'(w) {
    const have = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).stdout.trim().replace(/^go/, '');
    if (!have.startsWith(String(w['go-version']))) throw new Error(`setup-go asks for Go ${w['go-version']}, this machine has ${have}`);
    return { output: `Go ${have}` };
  },
  // The runner installs the version asked for; here the machine's own stands in, as long as it is
  // one the project supports (package.json's engines).
  'actions/setup-node'(w) {
    const engines = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json'), 'utf8')).engines?.node || '';
    const min = Number(/(\d+)/.exec(engines)?.[1] || 0);
    const major = Number(process.versions.node.split('.')[0]);
    if (major < min) throw new Error(`Node ${process.versions.node} here is older than the project's ${engines}`);
    return { output: `Node ${process.versions.node} here (the workflow asks for ${w['node-version']}; the project needs ${engines})` };
  },
  'actions/upload-artifact'(w, job) {
    const paths = String(w.path || '').split('\n').map((s) => s.trim()).filter(Boolean);
    if (!w.name || paths.length !== 1) throw new Error(`upload-artifact: this runner takes a name and one path (got "${w.name}", ${JSON.stringify(paths)})`);
    const src = isAbsolute(paths[0]) ? paths[0] : join(job.workspace, paths[0]);
    const dest = join(job.opts.artifacts, String(job.github.run_id), w.name);
    if (existsSync(dest)) throw new Error(`upload-artifact: an artifact named ${w.name} exists in run ${job.github.run_id} already`);
    if (!existsSync(src)) {
      if ((w['if-no-files-found'] || 'warn') === 'error') throw new Error(`upload-artifact: no files at ${paths[0]}`);
      return { output: `no files at ${paths[0]}: nothing uploaded` };
    }
    cpSync(src, statSync(src).isDirectory() ? dest : join(dest, src.split('/').pop()), { recursive: true, dereference: true });
    job.uploaded[w.name] = dest;
    return { output: `uploaded ${paths[0]} as ${w.name}` };
  },
  'actions/download-artifact'(w, job) {
    const runId = String(w['run-id'] || job.github.run_id);
    if (runId !== String(job.github.run_id) && !w['github-token']) throw new Error('download-artifact: another run\'s artifact needs github-token');
    const src = join(job.opts.artifacts, runId, String(w.name));
    if (!existsSync(src)) throw new Error(`download-artifact: run ${runId} has no artifact ${w.name}`);
    cpSync(src, join(job.workspace, w.path || ''), { recursive: true });
    return { output: `downloaded ${w.name} of run ${runId} into ${w.path || '.'}` };
  },
};

/**
 * Runs job `name` of the workflow. opts: { inputs, secrets (as given to the call), github: {...},
 * job: {...} (the job context), env (the runner's environment), workspace, checkouts, artifacts,
 * timeoutMs (per step) }. Resolves { conclusion, steps: [{ name, id, outcome, code, output }],
 * summary, runsOn, name, concurrency, uploaded }.
 */
export async function runJob(workflow, name, opts) {
  const spec = workflow.jobs[name];
  const workspace = opts.workspace;
  mkdirSync(workspace, { recursive: true });
  const temp = join(workspace, '..', `runner-temp-${Date.now()}`);
  mkdirSync(temp, { recursive: true });
  const github = { workspace, token: 'ghs-test-token', event_name: 'workflow_dispatch', ...opts.github };
  const status = { failed: false };
  const contexts = { inputs: opts.inputs, secrets: opts.secrets, github, job: opts.job || {}, steps: {}, env: {}, runner: { temp, os: 'Linux' } };
  const ctx = { contexts, status };
  const ev = (v) => interpolate(v, ctx);
  const evalEnv = (e) => Object.fromEntries(Object.entries(e || {}).map(([k, v]) => [k, String(ev(v) ?? '')]));

  const jobEnv = { ...evalEnv(workflow.env), ...evalEnv(spec.env) };
  const run = { name: ev(spec.name ?? name), runsOn: ev(spec['runs-on']), concurrency: spec.concurrency ? { group: ev(spec.concurrency.group), cancelInProgress: ev(spec.concurrency['cancel-in-progress']) } : null };
  const timeoutMs = opts.timeoutMs ?? Number(ev(spec['timeout-minutes'] ?? 360)) * 60_000;
  const job = { github, workspace, opts, uploaded: {} };
  const added = {}; // GITHUB_ENV of earlier steps
  const steps = [];
  let summary = '';
  for (const [n, s] of (spec.steps || []).entries()) {
    const label = s.name ? ev(s.name) : s.uses || `step ${n + 1}`;
    const record = { name: label, id: s.id, outcome: 'skipped', code: null, output: '' };
    steps.push(record);
    if (!condition(s.if, ctx)) {
      if (s.id) contexts.steps[s.id] = { outcome: 'skipped', conclusion: 'skipped', outputs: {} };
      continue;
    }
    const files = { GITHUB_OUTPUT: join(temp, `output-${n}`), GITHUB_ENV: join(temp, `env-${n}`), GITHUB_STEP_SUMMARY: join(temp, `summary-${n}`) };
    for (const f of Object.values(files)) writeFileSync(f, '');
    contexts.env = { ...jobEnv, ...added };
    if (s.uses) {
      const action = ACTIONS[String(s.uses).split('@')[0]];
      if (!action) throw new Error(`${label}: the action ${s.uses} is not known to this runner (tests/e2e/gha-job.mjs)`);
      const w = Object.fromEntries(Object.entries(s.with || {}).map(([k, v]) => [k, ev(v)]));
      try {
        record.output = action(w, job).output;
        record.outcome = 'success';
      } catch (e) {
        record.output = e.message;
        record.outcome = 'failure';
      }
    } else {
      const env = {
        ...opts.env,
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: workspace,
        GITHUB_RUN_ID: String(github.run_id),
        GITHUB_REPOSITORY: String(github.repository),
        RUNNER_TEMP: temp,
        ...files,
        ...jobEnv,
        ...added,
        ...evalEnv(s.env),
      };
      const wd = s['working-directory'] ?? spec.defaults?.run?.['working-directory'] ?? workflow.defaults?.run?.['working-directory'];
      const r = await runScript(ev(s.run), { cwd: wd ? join(workspace, ev(wd)) : workspace, env, timeoutMs, dir: temp });
      Object.assign(record, { code: r.code, output: r.output, outcome: r.code === 0 ? 'success' : 'failure' });
    }
    Object.assign(added, readKeyValues(files.GITHUB_ENV));
    summary += readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    if (s.id) contexts.steps[s.id] = { outcome: record.outcome, conclusion: record.outcome, outputs: readKeyValues(files.GITHUB_OUTPUT) };
    if (record.outcome === 'failure') status.failed = true;
  }
  return { ...run, conclusion: status.failed ? 'failure' : 'success', steps, summary, uploaded: job.uploaded };
}
