// Smoke: is the target up, and do login and one authenticated GET work?
//
// Load shape: 1 VU, 1 iteration: log in (login-with-expiry, or legacy /authn/login), then
// GET /service-points. Fails (non-zero exit) with a one-line cause when the target is
// unreachable, the tenant unknown or the credentials wrong.
//
// Run (from the repository root):
//   FOLIO_PASSWORD=admin k6 run scripts/smoke.js
// (FOLIO_ENV picks env/<name>.json; FOLIO_URL, FOLIO_TENANT, FOLIO_USER override it.)
//
// Where it lives: this file; the login in lib/k6/auth.js, the request and its rule in
// lib/cico/api.js (servicePoints), sent by the client in lib/k6/folio.js.

import exec from 'k6/execution';
import { envFileOf, parseEnvFile, resolveConfig, describeConfig, TARGET_ENV } from '../lib/config.js';
import { defaultsLookup } from '../lib/defaults.js';
import { Session } from '../lib/k6/auth.js';
import { makeClient, failureLog } from '../lib/k6/folio.js';
import { servicePoints } from '../lib/cico/api.js';
import { SYSTEM_TAGS } from '../lib/metrics.js';
import { fatal } from '../lib/k6/run.js';
import { makeTestId, validTestId } from '../lib/testid.js';

function load() {
  try {
    const where = envFileOf(__ENV);
    if (where.warning) console.warn(`folio-perf: ${where.warning}`);
    let text;
    try {
      text = open(import.meta.resolve(`../${where.file}`));
    } catch (_) {
      throw new Error(`environment file ${where.file} cannot be read; fix: set ${TARGET_ENV} to one of the files in env/`);
    }
    // The smoke test loads no test data, so neither DATA nor the database settings are checked.
    const lookup = defaultsLookup(__ENV, (f) => open(import.meta.resolve(`../${f}`)));
    const cfg = resolveConfig(parseEnvFile(text, where.file, lookup), __ENV, where, { noData: true });
    const testid = __ENV.TESTID || makeTestId('smoke', cfg.release);
    if (!validTestId(testid)) throw new Error(`TESTID "${testid}" is not a test id; fix: use letters, digits, . _ -`);
    return { cfg, testid };
  } catch (e) {
    return fatal(e);
  }
}

const { cfg, testid } = load();

export const options = {
  vus: 1,
  iterations: 1,
  tags: { testid, workflow: 'smoke', release: cfg.release, target: cfg.target },
  systemTags: [...SYSTEM_TAGS],
  thresholds: { checks: ['rate==1'] },
};

export default function () {
  console.log(`folio-perf smoke: ${describeConfig(cfg).replace(/ db=\S+ data=\S+ checkin-pool=\S+/, '')}`);
  const session = new Session(cfg);
  const cause = session.login();
  if (cause) {
    exec.test.abort(`folio-perf: ${cause}`);
    return;
  }
  const client = makeClient({ cfg, session, think: null, log: failureLog(1) });
  const r = client.call(servicePoints());
  if (r.ok) console.log(`folio-perf smoke: logged in (${session.legacy ? 'legacy /authn/login' : 'login-with-expiry'}), ${r.value} service points`);
}
