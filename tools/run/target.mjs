// Which FOLIO a run or a reset is aimed at: the stack's own minifolio, or another FOLIO that the user
// named (FOLIO_URL, or an env file other than local's). Only the local minifolio is ever restarted,
// seeded, reset or read in its database by folio-perf itself.

/** The user's own FOLIO, not this stack's minifolio. */
export function isExternal(env) {
  return Boolean(env.FOLIO_URL) || Boolean(env.K6_ENV && env.K6_ENV !== 'local');
}

/** How messages name an external target. */
export function externalName(env) {
  return env.FOLIO_URL || `the FOLIO of env/${env.K6_ENV}.json`;
}
