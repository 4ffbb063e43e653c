// The load generators' benchmarks (make bench-k6, make bench-jmeter) measure against the same
// target: the stack's minifolio restarted under `fast` (no mechanism slows an answer, so what is
// measured is the client), with a tenant of its own seeded with items enough for 200 VUs' pools.
// Restarted, not reused: a minifolio left by another run may serve another profile.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { minifolioDb } from './measure.mjs';
import { setting } from '../defaults.mjs';

// Not make bench-search's BENCH_TENANT (a setting): this tenant is the benchmarks' own.
const TENANT = 'k6bench';

/**
 * Starts the benchmark's minifolio and seeds its tenant; `die(msg)` ends the benchmark on a
 * failure. Returns { port, tenant, password, mf }: mf(args) runs another minifolio command the
 * same way (e.g. ['reset', '--tenant', tenant] before each run).
 */
export function startBenchMinifolio(repo, die) {
  // minifolio's local-only operator password; it reaches k6, JMeter and minifolio through their
  // environment or a file of the run's, never through argv.
  const password = setting('FP_ADMIN_PASSWORD');
  const mf = (args) => {
    const env = { ...process.env, MINIFOLIO_DB: minifolioDb(), MINIFOLIO_ADMIN_PASSWORD: password };
    const r = spawnSync(join(repo, 'bin', 'minifolio'), args, { cwd: repo, env, encoding: 'utf8' });
    if (r.status !== 0) die(`minifolio ${args[0]} failed: ${(r.stderr || r.stdout).trim().split('\n').pop()}`);
  };
  const port = setting('FP_MINIFOLIO_PORT');
  const runDir = join(process.env.FP_STACK_DIR || join(repo, '.stack'), 'minifolio');
  mf(['down', '--run-dir', runDir]);
  mf(['up', '--run-dir', runDir, '--port', port, '--profile', 'fast']);
  mf(['seed', '--tenant', TENANT, '--items', '20000', '--users', '2000', '--loans', '500', '--quiet']);
  return { port, tenant: TENANT, password, mf };
}
