// k6 itself: one process, or RUNNERS=N processes on execution segments of the same plan, the way
// the k6-operator splits a TestRun with parallelism N over N pods. Runner i (1..N) runs segment
// (i-1)/N:i/N of the sequence 0,1/N,...,1 with the same TESTID and the tag instance=i; k6 scales
// every scenario's VUs to the segment, so the runners together run the plan's VUs once, and each
// runner's test data is its own (lib/segments.js).
//
// Each runner judges its thresholds on its own samples only, so its exit 99 decides nothing: once
// all have ended, `folio-perf verdict` judges thresholds.json over the union of their samples in
// InfluxDB and its code (0 or 99) is the run's. Any other runner code (105 interrupted, 107 init,
// 108 setup, a crash) is the run's, without a verdict; and a runner that fails while the others
// still load the target stops them (each still checks in its own loans), rather than letting them
// run the whole plan for a run that has already failed.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runChild, signalChild, signalsReceived } from './children.mjs';
import { mergeRunnerLoss } from './sample-loss.mjs';

/** Runner i's execution segment and the sequence, as k6 wants them ("0:1/2", "0,1/2,1"). */
export function segmentOf(i, n) {
  const at = (k) => (k === 0 ? '0' : k === n ? '1' : `${k}/${n}`);
  const sequence = Array.from({ length: n + 1 }, (_, k) => at(k)).join(',');
  return { segment: `${at(i - 1)}:${at(i)}`, sequence };
}

/** Codes that mean a runner did its plan: 0, or 99 (its own thresholds, decided by the verdict). */
export const FINISHED = new Set([0, 99]);

/** One k6 process on the terminal. Resolves its exit code. */
export async function runOne({ k6, script, env, args }) {
  return (await runChild(k6, ['run', ...args, script], { env, guard: true })).code;
}

/**
 * N runners, each logging into <out>/runners/<i>/k6.log. Resolves the first code of a runner that
 * did not finish its plan, else 0 (the verdict decides after). say: a line for the operator.
 */
export async function runRunners({ k6, script, env, args, n, out, say }) {
  const runners = [];
  for (let i = 1; i <= n; i++) {
    const dir = join(out, 'runners', String(i));
    mkdirSync(dir, { recursive: true });
    rmSync(join(dir, 'sample-loss.json'), { force: true });
    const { segment, sequence } = segmentOf(i, n);
    say(`==> runner ${i} of ${n}: execution segment ${segment} (sequence ${sequence}), tag instance=${i}, log ${dir}/k6.log`);
    const log = openSync(join(dir, 'k6.log'), 'w');
    const r = { i, dir, child: null };
    r.done = runChild(k6, ['run', '--quiet', '--execution-segment', segment, '--execution-segment-sequence', sequence, ...args, script], {
      env: { ...env, INSTANCE: String(i), K6_INFLUXDB_LOSS_FILE: join(dir, 'sample-loss.json'), K6_WEB_DASHBOARD_EXPORT: join(dir, 'k6-report.html') },
      stdio: ['ignore', log, log],
      guard: true,
      onStart: (child) => (r.child = child),
    }).then((res) => {
      closeSync(log);
      return res.code;
    });
    runners.push(r);
  }

  let failed = null; // { i, code }: the first runner that did not finish its plan
  await Promise.all(
    runners.map(async (r) => {
      const code = await r.done;
      r.code = code;
      if (code === 0) say(`==> runner ${r.i}: k6 passed its own thresholds (exit 0)`);
      else if (code === 99) say(`==> runner ${r.i}: k6 exit 99 on its own samples only; the verdict over all runners decides`);
      else {
        say(`==> runner ${r.i}: k6 exited with ${code}; last lines of ${r.dir}/k6.log:`);
        for (const l of tail(join(r.dir, 'k6.log'), 5)) say(`    | ${l}`);
      }
      if (FINISHED.has(code) || failed) return;
      failed = { i: r.i, code };
      // A Ctrl-C or SIGTERM already reached every runner (forwarded once): a second one from here
      // would stop them before their teardown.
      if (signalsReceived().length > 0) return;
      const others = runners.filter((o) => o.code === undefined && o.child);
      if (others.length === 0) return;
      say(`==> runner ${r.i} failed (exit ${code}): stopping the other ${others.length} (each checks in its own loans first)`);
      for (const o of others) signalChild(o.child, 'SIGINT');
    }),
  );
  try {
    mergeRunnerLoss(out, runners.map((r) => join(r.dir, 'sample-loss.json')));
  } catch (e) {
    say(`==> samples: the runners' sample-loss files could not be added up (${e.message})`);
  }
  return failed ? failed.code : 0;
}

function tail(file, n) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n);
  } catch {
    return [];
  }
}
