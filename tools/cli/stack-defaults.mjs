// The native stack's addresses, state directory and local-only passwords as the stack sees them:
// defaults.env's values and what tools/defaults.sh derives from them (the state directory, the
// stack's database password and minifolio's database URL), sourced from there rather than derived
// here a second time. A value already in the environment wins, as it does for the shell. (A plain
// value of defaults.env alone: tools/defaults.mjs.)
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const NAMES = ['FP_STACK_DIR', 'FP_PG_PORT', 'FP_INFLUX_PORT', 'FP_TELEGRAF_PORT', 'FP_MINIFOLIO_PORT', 'FP_OPENSEARCH_PORT', 'FP_GRAFANA_PORT', 'FP_KEYCLOAK_PORT', 'FP_TENANT', 'FP_REINDEX_TENANT', 'FP_USER', 'FP_ADMIN_PASSWORD', 'FOLIO_DB_PASSWORD', 'FP_KEYCLOAK_ADMIN_PASSWORD'];

/** The defaults under env: { FP_PG_PORT: '55432', ..., MINIFOLIO_DB } (strings, as the shell has them). */
export function stackDefaults(env = process.env) {
  // NUL-separated: no value can break the parse, whatever it holds.
  const script = `. "$1/tools/defaults.sh" && printf '%s\\0' ${NAMES.map((n) => `"$${n}"`).join(' ')} "$(fp_minifolio_db)"`;
  const r = spawnSync('bash', ['-c', script, 'defaults', ROOT], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tools/defaults.sh could not be read (${(r.stderr || '').trim() || `exit ${r.status}`}); fix: restore it from git`);
  const values = r.stdout.split('\0');
  const out = Object.fromEntries(NAMES.map((n, i) => [n, values[i]]));
  // minifolio's database URL (password percent-encoded): for minifolio's environment, never argv.
  out.MINIFOLIO_DB = values[NAMES.length];
  return out;
}

