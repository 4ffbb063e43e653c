// Shared by the end-to-end tests: where the running test stack is, and small
// clients for it. `make test` (tools/test.sh) starts the stack and sets the
// FP_* variables; run alone, a test says which variable is missing.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localEnv } from '../../tools/local-env.mjs';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function env(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: run the end-to-end tests through \`make test\`, which starts the test stack`);
  }
  return v;
}

export const bin = (name) => join(process.env.FP_BIN || join(repo, 'bin'), name);

// influxQuery runs InfluxQL against the stack's InfluxDB and returns the
// `series` of the first statement ([] when empty); an InfluxDB error throws.
export async function influxQuery(q, db = 'k6') {
  const url = `${env('FP_INFLUX_URL')}/query?db=${encodeURIComponent(db)}&epoch=ms&q=${encodeURIComponent(q)}`;
  const res = await fetch(url);
  const body = await res.json();
  const r = body.results?.[0] ?? {};
  if (!res.ok || body.error || r.error) throw new Error(`InfluxDB: ${body.error || r.error} (query: ${q})`);
  return r.series ?? [];
}

// waitFor polls fn until it returns a truthy value or the time is up.
export async function waitFor(fn, { seconds = 30, what = 'condition' } = {}) {
  const end = Date.now() + seconds * 1000;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out after ${seconds}s waiting for ${what} (last: ${last})`);
}

// childEnv is the environment of every process a test starts: only what tools/local-env.allow keeps
// of this one (never the FOLIO_URL, FOLIO_PASSWORD, FOLIO_ENV, DATA, ... of the shell that ran the
// tests), the test stack's database password (tools/test-env.sh), FP_LOCAL_ONLY=1 (a target off
// this machine is refused) and then extra.
export function childEnv(extra = {}) {
  const stack = process.env.FOLIO_DB_PASSWORD ? { FOLIO_DB_PASSWORD: process.env.FOLIO_DB_PASSWORD } : {};
  return localEnv(process.env, { ...stack, K6_AUTO_EXTENSION_RESOLUTION: 'false', K6_NO_USAGE_REPORT: 'true', ...extra }).env;
}

// run executes a command to completion (bounded by timeoutMs) and returns
// {status, stdout, stderr}.
export function run(cmd, args, { env: extra = {}, timeoutMs = 120_000, cwd = repo } = {}) {
  const r = spawnSync(cmd, args, {
    cwd,
    env: childEnv(extra),
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// startFolioPerf starts `folio-perf ARGS` (default: run) in a process group of its own, as a
// terminal starts a command: signal(sig) sends to the group as Ctrl-C does, done(seconds) waits
// for the end (bounded: past it the group is killed) and gives { code, out }; vars add to the
// environment.
export function startFolioPerf(vars, args = ['run']) {
  const child = spawn(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), ...args], {
    cwd: repo,
    detached: true,
    env: childEnv(vars),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  const killGroup = () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  };
  return {
    child,
    output: () => out,
    signal: (sig) => process.kill(-child.pid, sig),
    killGroup,
    async done(seconds) {
      let timer;
      const code = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r('timeout'), seconds * 1000)))]);
      clearTimeout(timer);
      if (code === 'timeout') killGroup();
      return { code, out };
    },
  };
}

// The port of a suite's own minifolio, apart from the stack's: a minifolio on Eureka takes its port
// and the 64 above it (each module's sidecar 50 above the module, catalog.SidecarOffset), so the
// suites' own are 100 apart from it and from each other: 1 contract, 2 jmeter, 3 db-password.
export const ownMinifolioPort = (slot) => Number(env('FP_MINIFOLIO_PORT')) + 100 * slot;

// folioPerfRun runs `folio-perf run` as a user would (minifolio restarted, reset, k6) under a new
// test id `e2e-<name>-<ms>` with vars as its settings, and returns its exit, output and summary.json
// (null when the run stopped before writing one: the caller asserts on that).
export function folioPerfRun(name, vars, timeoutMs = 240_000) {
  const testid = `e2e-${name}-${Date.now()}`;
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], { env: { TESTID: testid, ...vars }, timeoutMs });
  let summary = null;
  try {
    summary = JSON.parse(readFileSync(join(repo, 'results', testid, 'summary.json'), 'utf8'));
  } catch {
    // no summary: asserted by the caller
  }
  return { ...r, out: r.stdout + r.stderr, testid, summary };
}

// folioPerf runs `node tools/folio-perf.mjs ARGS` (report, compare, ...) against the stack's
// InfluxDB; extra adds or overrides environment variables.
export function folioPerf(args, extra = {}) {
  return run('node', [join(repo, 'tools', 'folio-perf.mjs'), ...args], { env: { FP_INFLUX_URL: env('FP_INFLUX_URL'), ...extra }, timeoutMs: 60_000 });
}

// sql runs one statement through psql on the stack's database (FP_PG_DSN; the password through
// the environment) and returns the first column of its rows, one per line; an error throws.
export function sql(statement) {
  const u = new URL(env('FP_PG_DSN'));
  const r = run('psql', ['-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-h', u.hostname, '-p', u.port, '-U', u.username, '-d', u.pathname.slice(1), '-c', statement], {
    env: { PGPASSWORD: decodeURIComponent(u.password) },
  });
  if (r.status !== 0) throw new Error(`psql: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

// runAsync is run without blocking the event loop, for a command that talks to
// a server in this same test process. env is the child's whole environment.
export function runAsync(cmd, args, { env: childEnv, timeoutMs = 60_000, cwd = repo } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * The Markdown table under the caption line `**[Table N. ]captionStart…**` of a folio-perf report:
 * the caption line, the header cells and the rows as arrays of cells.
 */
export function mdTable(text, captionStart) {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.replace(/^\*\*Table \d+\. /, '**').startsWith(`**${captionStart}`));
  if (at < 0) throw new Error(`no table "${captionStart}" in the report`);
  const rows = [];
  for (let i = at + 2; i < lines.length && lines[i].startsWith('|'); i++) rows.push(lines[i].slice(2, -2).split(' | '));
  return { caption: lines[at], head: rows[0], rows: rows.slice(2) }; // header, separator, then the rows
}

/** Every distinct string (tag or field) of a run's points, with where it was first seen. */
export async function cellsOfRun(testid) {
  const cells = new Map();
  for (const s of await influxQuery(`SELECT * FROM /.*/ WHERE "testid" = '${testid.replace(/'/g, "\\'")}'`)) {
    for (const row of s.values) {
      row.forEach((cell, i) => {
        if (typeof cell === 'string' && !cells.has(cell)) cells.set(cell, `${s.name}.${s.columns[i]}`);
      });
    }
  }
  return cells;
}

/**
 * Where any of `values` appears in a run's points: every tag and every string field of every
 * measurement with the run's testid, as InfluxDB returns them. A value matches only as whole
 * words (not inside a longer run of letters and digits), so a barcode never matches inside a
 * timestamp. Returns "measurement.column = cell (holds value)" per distinct hit.
 */
export async function valuesInRun(testid, values) {
  const cells = await cellsOfRun(testid);
  const words = (text) => text.split(/[^0-9A-Za-z]+/).filter(Boolean);
  const hits = [];
  for (const [cell, where] of cells) {
    const padded = ` ${words(cell).join(' ')} `;
    for (const v of values) {
      if (v && padded.includes(` ${words(v).join(' ')} `)) hits.push(`${where} = ${cell} (holds ${v})`);
    }
  }
  return hits;
}

// The processes whose parent is pid, and theirs (from /proc): what a command started, to check
// that none outlives it, or to find one of them (e.g. a runner's k6) to signal.
export function descendants(pid) {
  const children = new Map();
  for (const d of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const walk = (p) => (children.get(p) || []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}
export const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return !/^\S+ \S+ Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^(\d+) \(.*\) /s, '$1 x '));
  } catch {
    return false;
  }
};
export const cmdline = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
};

