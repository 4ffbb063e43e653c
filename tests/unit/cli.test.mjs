// folio-perf's command line without services: the command exists as the README writes it (npx,
// bin/folio-perf), every subcommand has --help, options are parsed by parseArgs and a bad one is one
// line, a password on the command line is refused before anything starts, the analysis commands
// default to the local stack's InfluxDB and say so, a hostile test id given to make runs nothing,
// and the run's pure parts (settings, segments, sample loss, progress lines, workflow registry).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync, lstatSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../../tools/cli/commands.mjs';
import { renderHelp } from '../../tools/cli/args.mjs';
import { chooseInflux, shownUrl } from '../../tools/cli/influx.mjs';
import { runPlan, settingsFromArgs } from '../../tools/run/settings.mjs';
import { segmentOf } from '../../tools/run/k6.mjs';
import { addLoss } from '../../tools/run/sample-loss.mjs';
import { countRequests, progressLine, progressQuery } from '../../tools/run/progress.mjs';
import { runWorkflow, workflowNames } from '../../tools/run/workflows.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(repo, 'tools', 'folio-perf.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'fp-cli-unit-'));
// No variable of the caller's shell reaches these runs: only what each test sets.
const cleanEnv = (extra = {}) => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...extra });
const folioPerf = (args, extra = {}, opts = {}) => spawnSync(process.execPath, [cli, ...args], { cwd: repo, env: cleanEnv(extra), encoding: 'utf8', timeout: 60_000, ...opts });

// A TCP port nothing listens on (bound, then closed).
async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

test('folio-perf exists as a command: npx folio-perf (package.json bin) and bin/folio-perf (make)', () => {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  assert.equal(pkg.bin['folio-perf'], 'tools/folio-perf.mjs');
  assert.match(readFileSync(cli, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  assert.ok(lstatSync(cli).mode & 0o111, 'tools/folio-perf.mjs is executable');
  const npx = spawnSync('npx', ['--offline', '--no-install', 'folio-perf', '--help'], { cwd: repo, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
  assert.equal(npx.status, 0, npx.stderr);
  for (const c of COMMANDS) assert.match(npx.stdout, new RegExp(`^  ${c.name} +\\S`, 'm'));
  const mk = spawnSync('make', ['--no-print-directory', '-C', repo, join(repo, 'bin', 'folio-perf')], { env: cleanEnv(), encoding: 'utf8' });
  assert.equal(mk.status, 0, mk.stderr);
  assert.equal(readlinkSync(join(repo, 'bin', 'folio-perf')), '../tools/folio-perf.mjs');
  const b = spawnSync(join(repo, 'bin', 'folio-perf'), ['report', '--help'], { cwd: tmpdir(), env: cleanEnv(), encoding: 'utf8' });
  assert.equal(b.status, 0, b.stderr);
  assert.match(b.stdout, /^usage: folio-perf report <testid>/);
});

test('every subcommand has --help: its usage, what it does, each option', () => {
  assert.deepEqual(COMMANDS.map((c) => c.name), ['run', 'reset', 'report', 'compare', 'baseline', 'verdict']);
  for (const c of COMMANDS) {
    for (const args of [[c.name, '--help'], [c.name, '-h'], ['help', c.name]]) {
      const r = folioPerf(args);
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, renderHelp(c));
    }
    const help = renderHelp(c);
    assert.match(help, new RegExp(`^usage: folio-perf ${c.name}`));
    for (const o of Object.keys(c.options)) assert.match(help, new RegExp(`--${o}\\b`), `${c.name} --help names --${o}`);
    assert.ok(help.split('\n').every((l) => l.length <= 120), `${c.name} --help: no line over 120 characters`);
  }
  const top = folioPerf(['--help']);
  assert.equal(top.status, 0);
  const none = folioPerf([]);
  assert.equal(none.status, 1, 'no command: the overview, exit 1');
  assert.match(none.stdout, /usage: folio-perf <command>/);
});

test('bad arguments: one line with the cause and the fix, exit 1, no stack trace', () => {
  const cases = [
    [['verdict'], /^folio-perf: verdict takes 1 test id, got 0; fix: folio-perf verdict <testid>/],
    [['verdict', 'x', '--bogus'], /^folio-perf: verdict: Unknown option '--bogus'; fix: folio-perf verdict /],
    [['verdict', 'x', '--alpha'], /^folio-perf: verdict: Option '--alpha <value>' argument missing; fix: /],
    [['verdict', 'x', '--alpha', '2'], /^folio-perf: --alpha 2 is not a false-alarm rate; fix: a number in \(0, 0\.5\)/],
    [['compare', 'a'], /^folio-perf: compare takes 2 test ids \(A the reference, B the candidate\), got 1; fix: /],
    [['baseline'], /^folio-perf: baseline takes 1 or more test ids, got 0; fix: /],
    [['report', 'a', 'b'], /^folio-perf: report takes 1 test id, got 2; fix: /],
    [['report', 'x";id;"'], /^folio-perf: "x";id;"" is not a test id; fix: /],
    [['reset', 'extra'], /^folio-perf: reset takes 0 arguments, got 1; fix: /],
    [['frobnicate'], /^folio-perf: unknown command "frobnicate"; fix: one of run, reset, report, compare, baseline, verdict/],
    [['run', 'profile=smoke'], /^folio-perf: run: "profile=smoke" is not a NAME=VALUE setting; fix: /],
  ];
  for (const [args, want] of cases) {
    const r = folioPerf(args, { FP_INFLUX_URL: 'http://127.0.0.1:1' });
    assert.equal(r.status, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    const errLines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('folio-perf: InfluxDB '));
    assert.equal(errLines.length, 1, `${args.join(' ')}: one line:\n${r.stderr}`);
    assert.match(errLines[0], want);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

test('a password on the command line is refused before anything starts, with the fix', () => {
  for (const name of ['FOLIO_PASSWORD', 'FOLIO_DB_PASSWORD', 'K6_INFLUXDB_PASSWORD', 'MINIFOLIO_ADMIN_PASSWORD']) {
    const r = folioPerf(['run', 'PROFILE=smoke', `${name}=s3cret-on-argv`]);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.equal(r.stdout, '', 'nothing ran (no make, no minifolio)');
    assert.deepEqual(r.stderr.trim().split('\n'), [
      `folio-perf: run: ${name} is refused on the command line, where every user of this machine can read it (ps, shell history); fix: export it in the environment instead (read -rs ${name} && export ${name}), then run without it`,
    ]);
    assert.ok(!r.stderr.includes('s3cret-on-argv'), 'the refused value is not echoed');
  }
  assert.deepEqual(settingsFromArgs(['PROFILE=smoke', 'TOKEN_TTL=20s', 'THRESHOLDS=a=b.json']), { PROFILE: 'smoke', TOKEN_TTL: '20s', THRESHOLDS: 'a=b.json' });
  // make's command line is as visible: make refuses it before any recipe runs; from the environment it is fine.
  const mk = spawnSync('make', ['--no-print-directory', '-C', repo, 'run', 'PROFILE=smoke', 'FOLIO_PASSWORD=s3cret-on-argv'], { env: cleanEnv(), encoding: 'utf8' });
  assert.equal(mk.status, 2);
  assert.equal(mk.stdout, '', 'no recipe ran');
  assert.match(mk.stderr, /^Makefile:\d+: \*\*\* FOLIO_PASSWORD is refused on make's command line, .*; fix: export it in the environment instead/);
  const fromEnv = spawnSync('make', ['--no-print-directory', '-C', repo, '-n', 'report'], { env: cleanEnv({ FOLIO_PASSWORD: 'from-env' }), encoding: 'utf8' });
  assert.equal(fromEnv.status, 0, fromEnv.stderr);
});

test("k8s/README.md puts the passwords into the Secret from a file, never from the command line", () => {
  const doc = readFileSync(join(repo, 'k8s', 'README.md'), 'utf8');
  assert.doesNotMatch(doc, /--from-literal/);
  assert.match(doc, /kubectl create secret generic \S+[^\n]*(\\\n[^\n]*)*--from-env-file=/);
});

test("report, compare, baseline and verdict read the local stack's InfluxDB by default and say so", async () => {
  const port = await freePort();
  for (const args of [['report', 'no-such-run'], ['verdict', 'no-such-run'], ['compare', 'a', 'b'], ['baseline', 'no-such-run']]) {
    const r = folioPerf(args, { FP_INFLUX_PORT: String(port) });
    assert.equal(r.status, 1);
    if (args[0] === 'verdict') {
      assert.match(r.stderr, new RegExp(`^folio-perf: InfluxDB http://127\\.0\\.0\\.1:${port} \\(the local stack's; --influx <url> or FP_INFLUX_URL for another\\)\\n`));
      assert.match(r.stderr, new RegExp(`InfluxDB not reachable at http://127\\.0\\.0\\.1:${port}`));
    }
  }
  // The default port is the one defaults file's.
  const defaults = spawnSync('bash', ['-c', '. tools/defaults.sh && echo $FP_INFLUX_PORT'], { cwd: repo, env: cleanEnv(), encoding: 'utf8' }).stdout.trim();
  assert.deepEqual(chooseInflux(undefined, cleanEnv()), { url: `http://127.0.0.1:${defaults}`, source: "the local stack's; --influx <url> or FP_INFLUX_URL for another" });
  assert.equal(chooseInflux(undefined, cleanEnv({ FP_INFLUX_URL: 'http://h:1' })).source, 'FP_INFLUX_URL');
  assert.equal(chooseInflux('http://x:2', cleanEnv({ FP_INFLUX_URL: 'http://h:1' })).url, 'http://x:2');
  assert.equal(shownUrl('http://user:pw@influx.example:8086/'), 'http://influx.example:8086');
  // A URL the user gave: no notice, the error alone (one line).
  const v = folioPerf(['verdict', 'no-such-run', '--influx', `http://127.0.0.1:${port}`]);
  assert.equal(v.stderr.trim().split('\n').length, 1, v.stderr);
  assert.match(v.stderr, new RegExp(`^folio-perf: InfluxDB not reachable at http://127\\.0\\.0\\.1:${port}`));
});

// make pastes $(TESTID) into a recipe's text before the shell reads it; the aliases take user
// values from the environment, quoted, so a test id holding quotes is only a bad test id.
test('make report/compare with a hostile test id run nothing but folio-perf, which refuses it', () => {
  const marker = join(tmp, 'pwned');
  const hostile = `x";touch ${marker};"`;
  for (const args of [['report', `TESTID=${hostile}`], ['compare', `A=${hostile}`, `B=${hostile}`], ['report', `TESTID=$(touch ${marker})`]]) {
    const r = spawnSync('make', ['--no-print-directory', '-C', repo, ...args], { env: cleanEnv({ FP_INFLUX_URL: 'http://127.0.0.1:1' }), encoding: 'utf8', timeout: 60_000 });
    assert.notEqual(r.status, 0, r.stdout + r.stderr);
    assert.equal(existsSync(marker), false, `make ${args.join(' ')} ran the injected command`);
    // (make itself expands $(...) in a command-line value: that one arrives empty.)
    assert.match(r.stderr, /^folio-perf: (".*" is not a test id|report takes 1 test id, got 0); fix: /m);
  }
  const unset = spawnSync('make', ['--no-print-directory', '-C', repo, 'report'], { env: cleanEnv(), encoding: 'utf8' });
  assert.notEqual(unset.status, 0);
  assert.match(unset.stderr, /folio-perf: report takes 1 test id, got 0; fix: folio-perf report <testid>/);
  // No recipe pastes a user value into its text: every ?= variable is exported and read as "$$NAME".
  for (const f of ['Makefile', ...readdirSync(join(repo, 'mk')).map((n) => join('mk', n))]) {
    const text = readFileSync(join(repo, f), 'utf8');
    // ... and every NAME= a target's help offers (make jmeter-run PLAN=... pasted $(PLAN) once).
    const offered = [...text.matchAll(/##.*$/gm)].flatMap((m) => [...m[0].matchAll(/\b([A-Z][A-Z0-9_]*)=/g)].map((x) => x[1]));
    const userVars = [...text.matchAll(/^(?:export )?([A-Z_][A-Z0-9_]*) \?=/gm)].map((m) => m[1]).concat(['TESTID', 'A', 'B'], offered);
    for (const recipe of text.split('\n').filter((l) => l.startsWith('\t'))) {
      for (const v of userVars) assert.ok(!recipe.includes(`$(${v})`), `${f}: a recipe pastes $(${v}): ${recipe.trim()}`);
    }
  }
});

test('run settings: each bad one is one line with the fix, checked before anything starts', () => {
  const ctx = { workflows: ['cico', 'search'], minifolioProfiles: ['fast', 'lotus'], now: new Date('2026-11-22T03:00:00Z') };
  const plan = runPlan({}, ctx);
  assert.equal(plan.workflow, 'cico');
  assert.equal(plan.testid, 'cico-20261122T030000Z-fast');
  assert.equal(plan.external, false);
  assert.equal(plan.runners, 1);
  assert.deepEqual(plan.seed, { scale: 'demo', args: ['--scale', 'demo'] });
  // a size given wins over the scale's (minifolio seed: a flag given wins over --scale)
  assert.deepEqual(runPlan({ SEED_SCALE: '1m', SEED_USERS: '100', SEED_EVENTS_PER_USER: '10000' }, ctx).seed.args,
    ['--scale', '1m', '--users', '100', '--events-per-user', '10000']);
  const ext = runPlan({ FOLIO_URL: 'https://folio.example.org', WORKFLOW: 'search' }, ctx);
  assert.equal(ext.external, true);
  assert.equal(ext.release, '');
  assert.equal(ext.testid, 'search-20261122T030000Z-folio');
  assert.equal(runPlan({ FOLIO_ENV: 'mylib' }, ctx).testid, 'cico-20261122T030000Z-mylib');
  assert.equal(runPlan({ K6_ENV: 'mylib' }, ctx).testid, 'cico-20261122T030000Z-mylib', "FOLIO_ENV's old name");
  const bad = [
    [{ WORKFLOW: 'circulation' }, "unknown WORKFLOW 'circulation'; fix: use one of WORKFLOW=cico, WORKFLOW=search"],
    [{ RUNNERS: '0' }, "RUNNERS '0' is not a number of k6 processes from 1 to 16; fix: use e.g. RUNNERS=2"],
    [{ RUNNERS: '17' }, "RUNNERS '17' is not a number of k6 processes from 1 to 16; fix: use e.g. RUNNERS=2"],
    [{ RUNNERS: '2', INSTANCE: '3' }, 'INSTANCE is set by RUNNERS=N for each runner; fix: unset INSTANCE'],
    [{ SAMPLE_LOSS: 'maybe' }, "SAMPLE_LOSS 'maybe' is neither fail nor warn; fix: use SAMPLE_LOSS=fail (default) or warn"],
    [{ MINIFOLIO_PROFILE: 'nope' }, "unknown MINIFOLIO_PROFILE 'nope'; fix: use one of: fast lotus"],
    [{ PROGRESS_EVERY: '0' }, "PROGRESS_EVERY '0' is not a number of seconds; fix: use e.g. PROGRESS_EVERY=60"],
    [{ TESTID: 'a b' }, "TESTID 'a b' is not a test id; fix: use letters, digits, . _ - (e.g. cico-20261122T030000Z-lotus)"],
    [{ SEED_ITEMS: '-1' }, "SEED_ITEMS '-1' is not a count; fix: use a whole number, e.g. SEED_ITEMS=20000"],
    [{ SEED_SCALE: 'huge' }, "SEED_SCALE 'huge' is not one of minifolio's scales; fix: use SEED_SCALE=demo, SEED_SCALE=1m, SEED_SCALE=ptf (docs/scale.md)"],
    [{ TOKEN_TTL: 'soon' }, "TOKEN_TTL 'soon' is not a duration; fix: use e.g. TOKEN_TTL=10m"],
  ];
  for (const [env, msg] of bad) assert.throws(() => runPlan(env, ctx), { name: 'UsageError', message: msg });
  assert.equal(runPlan({ TOKEN_TTL: '1m30s' }, ctx).tokenTtl, '1m30s');
});

test("runner segments are k6's (the k6-operator's split), sample losses add up, progress lines count requests", () => {
  assert.deepEqual(segmentOf(1, 1), { segment: '0:1', sequence: '0,1' });
  assert.deepEqual(segmentOf(1, 2), { segment: '0:1/2', sequence: '0,1/2,1' });
  assert.deepEqual(segmentOf(3, 4), { segment: '2/4:3/4', sequence: '0,1/4,2/4,3/4,1' });
  assert.deepEqual(segmentOf(4, 4), { segment: '3/4:1', sequence: '0,1/4,2/4,3/4,1' });
  const t = addLoss([{ samples: 10, written: 8, dropped: 2, reasons: { timeout: 2 } }, { samples: 30, written: 30, dropped: 0, reasons: {} }]);
  assert.deepEqual(t, { samples: 40, written: 38, dropped: 2, reasons: { timeout: 2 }, runners: 2, share: 0.05 });
  assert.equal(progressQuery('t-1', 60), `SELECT count("value") FROM "http_reqs" WHERE "testid" = 't-1' AND time > now() - 60s GROUP BY "expected_response"`);
  const series = [{ tags: { expected_response: 'true' }, values: [[0, 40]] }, { tags: { expected_response: 'false' }, values: [[0, 2]] }];
  assert.equal(countRequests(series), '42 requests (2 failed)');
  assert.equal(countRequests(undefined), '0 requests (0 failed)');
  assert.equal(progressLine(125, '42 requests (2 failed)', 60, 't-1'), '==> progress: 2 min 5 s in, 42 requests (2 failed) in the last 60 s (testid t-1)');
  assert.equal(progressLine(5, null, 60, 't-1'), '==> progress: 0 min 5 s in, InfluxDB did not answer (testid t-1)');
});

test("the run finds a workflow through the registry; its run parts are optional, a wrong one fails loudly", async () => {
  const cico = await runWorkflow('cico');
  assert.equal(cico.script, 'scripts/check-in-check-out.js');
  assert.equal(typeof cico.checkLocal, 'function');
  assert.equal((await runWorkflow('search')).script, 'scripts/mod-search.js');
  assert.deepEqual(workflowNames(), ['cico', 'search']);
  // A workflow without tools/run/workflows/<name>.mjs runs with none of the parts.
  const dir = join(tmp, 'run-workflows');
  mkdirSync(dir);
  const bare = await runWorkflow('cico', dir);
  assert.deepEqual(Object.keys(bare).sort(), ['name', 'script']);
  writeFileSync(join(dir, 'cico.mjs'), "export default { dashboard: 'x', afterReset: 'not a function' };\n");
  await assert.rejects(runWorkflow('cico', dir), /tools\/run\/workflows\/cico\.mjs: afterReset is not one of its parts/);
  await assert.rejects(runWorkflow('circulation'), /unknown workflow "circulation"/);
  // No workflow switch in the run or the command line: they look the workflow up.
  for (const d of ['tools/run', 'tools/cli']) {
    for (const f of readdirSync(join(repo, d))) {
      if (!f.endsWith('.mjs')) continue;
      assert.doesNotMatch(readFileSync(join(repo, d, f), 'utf8'), /===? ?['"](cico|search)['"]/, `${d}/${f} switches on a workflow name`);
    }
  }
});

test('docs/cli.md names every command, option and run setting, in lines of at most 120 characters', async () => {
  const doc = readFileSync(join(repo, 'docs', 'cli.md'), 'utf8');
  for (const c of COMMANDS) {
    assert.match(doc, new RegExp(`folio-perf ${c.name}\\b`), c.name);
    for (const o of Object.keys(c.options)) assert.match(doc, new RegExp(`--${o}\\b`), `${c.name} --${o}`);
  }
  const { RUN_SETTINGS } = await import('../../tools/run/settings.mjs');
  for (const [names] of RUN_SETTINGS) for (const n of names.split(', ')) assert.match(doc, new RegExp(`\`${n}\``), n);
  for (const [i, l] of doc.split('\n').entries()) assert.ok(l.length <= 120, `docs/cli.md:${i + 1} is ${l.length} characters`);
});

test('the search run at a scale: OpenSearch gets a heap for the index, the reindex bound grows, a complete index is kept', async () => {
  const search = await runWorkflow('search');
  const run = async (env) => {
    const steps = [];
    const ctx = {
      env,
      plan: runPlan(env, { workflows: ['cico', 'search'], minifolioProfiles: ['fast'], now: new Date('2026-11-26T00:00:00Z') }),
      defaults: { FP_OPENSEARCH_PORT: '59199', FP_TENANT: 'fs09000000', FP_REINDEX_TENANT: 'fs09000001', FP_USER: 'folio_admin' },
      say() {},
      minifolio: 'bin/minifolio',
      minifolioUrl: 'http://127.0.0.1:9130',
      step: async (cmd, args, opts) => steps.push({ cmd, args, heap: opts?.env?.FP_OPENSEARCH_HEAP }),
    };
    await search.minifolioArgs(ctx);
    await search.afterReset(ctx);
    return steps;
  };
  const demo = await run({});
  assert.equal(demo[0].heap, '512m');
  const m = await run({ SEED_SCALE: '1m' });
  assert.deepEqual([m[0].cmd, m[0].args, m[0].heap], ['stack/stack.sh', ['up', 'search'], '2g']);
  assert.equal((await run({ SEED_SCALE: 'ptf' }))[0].heap, '4g');
  assert.equal((await run({ SEED_SCALE: 'ptf', FP_OPENSEARCH_HEAP: '1g' }))[0].heap, '1g', 'the setting wins');
  // tenant A: the scale's sizes without a patron history; both indexes kept when complete
  const seed = m.find((s) => s.args[0] === 'seed');
  assert.deepEqual(seed.args.slice(-4), ['--scale', '1m', '--events-per-user', '0']);
  const index = m.filter((s) => s.args[0]?.endsWith('search-index.mjs'));
  assert.equal(index.length, 2);
  for (const s of index) {
    assert.ok(s.args.includes('--if-incomplete'), s.args.join(' '));
    assert.equal(s.args[s.args.indexOf('--timeout') + 1], '10800');
  }
  const demoIndex = demo.find((s) => s.args[0]?.endsWith('search-index.mjs')).args;
  assert.equal(demoIndex[demoIndex.indexOf('--timeout') + 1], '600');
});
