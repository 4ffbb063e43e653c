// Which FOLIO a run or a reset is aimed at: the stack's own minifolio, or another FOLIO that the user
// named (FOLIO_URL, or an env file other than local's: FOLIO_ENV, once K6_ENV). Only the local
// minifolio is ever restarted, seeded, reset or read in its database by folio-perf itself.
import { targetEnvName, TARGET_ENV, OLD_TARGET_ENV } from '../../lib/config.js';

/** The user's own FOLIO, not this stack's minifolio. */
export function isExternal(env) {
  const { name } = targetEnvName(env);
  return Boolean(env.FOLIO_URL) || Boolean(name && name !== 'local');
}

/** How messages name an external target. */
export function externalName(env) {
  return env.FOLIO_URL || `the FOLIO of env/${targetEnvName(env).name}.json`;
}

/**
 * env with the target's env file named by FOLIO_ENV only (an old K6_ENV moved there, so k6 and the
 * tools read one name), and the warning to print for the old name, or null. Throws ConfigError when
 * both are set and differ.
 */
export function withTargetEnv(env) {
  const { name, warning } = targetEnvName(env);
  const out = { ...env };
  delete out[OLD_TARGET_ENV];
  if (name !== undefined) out[TARGET_ENV] = name;
  return { env: out, warning };
}
