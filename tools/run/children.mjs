// The front door's child processes (make, minifolio, psql, k6) and the signals it passes on.
//
// Every child runs in a process group of its own, so a Ctrl-C at the terminal reaches folio-perf
// alone and folio-perf passes it on exactly once: k6 counts interrupts (the first stops the load
// and runs teardown, the second stops at once), so a child that got the terminal's signal and the
// forwarded one as well would skip its teardown. SIGINT and SIGTERM go on as they came; SIGHUP (the
// terminal went away) goes on as SIGTERM, so k6 still checks in what it checked out. folio-perf
// itself does not die of these signals: it waits for its children, then finishes (nothing it
// started outlives it). And should folio-perf itself be killed (SIGKILL, which no process can
// catch), each child gets SIGTERM from the kernel (util-linux's setpriv --pdeathsig), so k6 still
// stops the load and checks in rather than running on, orphaned, to the end of its plan.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

const live = new Set();
const received = [];
let installed = false;

const FORWARD = { SIGINT: 'SIGINT', SIGTERM: 'SIGTERM', SIGHUP: 'SIGTERM' };

/** From now on, SIGINT/SIGTERM/SIGHUP reach the running children instead of ending folio-perf. */
export function forwardSignals() {
  if (installed) return;
  installed = true;
  for (const [sig, to] of Object.entries(FORWARD)) {
    process.on(sig, () => {
      received.push(sig);
      for (const c of live) signalGroup(c, to);
    });
  }
}

/** The signals folio-perf has received so far (in order). */
export function signalsReceived() {
  return [...received];
}

function signalGroup(child, sig) {
  try {
    process.kill(-child.pid, sig);
  } catch {
    // already gone
  }
}

/** The exit code a shell would report: the child's, or 128 + the signal that ended it. */
export function exitCode(code, signal) {
  if (code !== null && code !== undefined) return code;
  return 128 + (constants.signals[signal] || 1);
}

/**
 * Runs cmd to its end. stdio 'inherit' (default) shares the terminal; capture: true collects
 * stdout and stderr instead. Resolves { code, stdout, stderr, pid } (code 127: could not start).
 * onStart(child) sees the child as soon as it runs (e.g. to log into a file).
 */
export function runChild(cmd, args, { env = process.env, cwd, capture = false, stdio, onStart } = {}) {
  return new Promise((resolve) => {
    const [file, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'TERM', '--', cmd, ...args]] : [cmd, args];
    const child = spawn(file, argv, { env, cwd, detached: true, stdio: stdio || (capture ? ['ignore', 'pipe', 'pipe'] : 'inherit') });
    let stdout = '';
    let stderr = '';
    if (child.stdout) child.stdout.on('data', (d) => (stdout += d));
    if (child.stderr) child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (e) => {
      live.delete(child);
      resolve({ code: 127, stdout, stderr: `${stderr}${e.message}`, pid: child.pid });
    });
    if (child.pid === undefined) return;
    live.add(child);
    if (onStart) onStart(child);
    child.on('close', (code, signal) => {
      live.delete(child);
      resolve({ code: exitCode(code, signal), stdout, stderr, pid: child.pid });
    });
  });
}

/** Sends sig to one running child's group (e.g. to stop the other runners). */
export function signalChild(child, sig) {
  if (live.has(child)) signalGroup(child, sig);
}
