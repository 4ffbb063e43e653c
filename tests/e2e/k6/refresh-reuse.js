// Refresh-token reuse against a FOLIO that rotates single-use refresh tokens (minifolio's Eureka
// profiles: mod-login-keycloak on Keycloak, revoke on use, max reuse 0). Two Sessions of
// lib/k6/auth.js hold the same refresh token, as two clients sharing one would:
//   1. A refreshes: 201, a new pair (the old refresh token is now used);
//   2. B redeems the old one: 422, counted (auth_refresh_refused), and B logs in again;
//   3. Keycloak ended A's session on that reuse, so A's rotated token is refused too: 422, counted,
//      A logs in again.
// After each, a GET with the session's token must answer 200. tests/e2e/drills.test.mjs reads the
// counters from the summary written to SUMMARY_OUT.
import { check } from 'k6';
import { envFileName, parseEnvFile, resolveConfig } from '../../../lib/config.js';
import { defaultsLookup } from '../../../lib/defaults.js';
import { Session } from '../../../lib/k6/auth.js';
import { makeClient, failureLog } from '../../../lib/k6/folio.js';
import { servicePoints } from '../../../lib/cico/api.js';

const where = envFileName(__ENV.K6_ENV);
const lookup = defaultsLookup(__ENV, (f) => open(import.meta.resolve(`../../../${f}`)));
const cfg = resolveConfig(parseEnvFile(open(import.meta.resolve(`../../../${where.file}`)), where.file, lookup), __ENV, where, { noData: true });

export const options = { vus: 1, iterations: 1, thresholds: { checks: ['rate==1'] } };

export default function () {
  const a = new Session(cfg, { token: 'cookie' });
  check(a.login(), { 'A logged in': (cause) => cause === null });
  const b = new Session(cfg, { token: 'cookie' });
  b.state = { ...a.state };
  const works = (s, what) => check(makeClient({ cfg, session: s, think: null, log: failureLog(what) }).call(servicePoints()), { [`${what}: a GET works`]: (r) => r.ok });

  check(a.refresh(), { 'A refreshed': (cause) => cause === null });
  check(a.refused, { 'A: nothing refused yet': (n) => n === 0 });
  works(a, 'A after its refresh');

  check(b.refresh(), { 'B: the reused token was refused, B logged in again': (cause) => cause === null });
  check(b.refused, { 'B: one refusal counted': (n) => n === 1 });
  works(b, 'B after its new login');

  check(a.refresh(), { "A: the rotated token was refused too, A logged in again": (cause) => cause === null });
  check(a.refused, { 'A: one refusal counted': (n) => n === 1 });
  works(a, 'A after its new login');
}

export function handleSummary(data) {
  return { [__ENV.SUMMARY_OUT]: JSON.stringify(data), stdout: '' };
}
