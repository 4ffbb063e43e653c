// The front door's child processes (make, minifolio, psql, k6) and the signals it passes on.
//
// Every child runs in a process group of its own, so a Ctrl-C at the terminal reaches folio-perf
// alone and folio-perf passes it on exactly once: k6 counts interrupts (the first stops the load
// and runs teardown, the second stops at once), so a child that got the terminal's signal and the
// forwarded one as well would skip its teardown. SIGINT and SIGTERM go on as they came; SIGHUP (the
// terminal went away) goes on as SIGTERM, so k6 still checks in what it checked out. folio-perf
// itself does not die of these signals: it waits for its children, then finishes (nothing it
// started outlives it). And should folio-perf itself be killed (SIGKILL, which no process can
// catch), a guarded child (k6) is not left running its plan out: a small guard shell reads a pipe
// from folio-perf, and when that pipe closes without folio-perf's "done" (it died) it sends the
// child's group one SIGTERM, so k6 still stops the load and checks in. (The kernel's parent-death
// signal would not do: it fires once per thread of the dying parent, and a second signal makes
// k6 skip its teardown.)
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const GUARD = 'if read -r _; then exit 0; fi; kill -TERM "-$1" 2>/dev/null';

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
 * onStart(child) sees the child as soon as it runs (e.g. to log into a file); guard: the child gets
 * SIGTERM should folio-perf die before it (see above).
 */
export function runChild(cmd, args, { env = process.env, cwd, capture = false, stdio, onStart, guard = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, cwd, detached: true, stdio: stdio || (capture ? ['ignore', 'pipe', 'pipe'] : 'inherit') });
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
    const guardian = guard ? spawn('sh', ['-c', GUARD, 'guard', String(child.pid)], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] }) : null;
    if (guardian) guardian.stdin.on('error', () => {}); // a guard that is gone has nothing to say
    if (onStart) onStart(child);
    child.on('close', (code, signal) => {
      if (guardian) guardian.stdin.end('done\n');
      live.delete(child);
      resolve({ code: exitCode(code, signal), stdout, stderr, pid: child.pid });
    });
  });
}

/** Sends sig to one running child's group (e.g. to stop the other runners). */
export function signalChild(child, sig) {
  if (live.has(child)) signalGroup(child, sig);
}
