// The record of what a run tests (lib/record.js), taken in setup() after the login: the module
// list as the target's platform gives it (Okapi first; Kong answers /_/proxy with a 404, then
// Eureka's entitlements and its /version), the data size, and k6's own version from the
// User-Agent k6 sends. Every answer is expected (a 404 is information, not a failed request) and
// every request is named with RECORD_PREFIX, so the run's tables leave them out.

import { send, ANY_STATUS } from './http.js';
import { parseJson } from '../folio.js';
import { RECORD_PREFIX, OKAPI_MODULES, EUREKA_APPLICATIONS, EUREKA_VERSION, DATA_COUNTS, buildRecord } from '../record.js';

// Read in init by lib/k6/run.js, which loads this module for VU 0 only.
export { gitCommit } from '../record.js';

/**
 * @param {object} cfg the resolved configuration (cfg.folio.url, cfg.folio.tenant)
 * @param {object} session a logged-in Session (lib/k6/auth.js)
 * @param {object|null} commit gitCommit()'s answer, read in init
 * @param {object} load the load as configured: {profile, steps, stepDuration, think}
 */
export function captureRecord(cfg, session, commit, load) {
  const tenant = cfg.folio.tenant;
  const get = (path, name) => {
    const res = send('GET', `${cfg.folio.url}${path}`, null, {
      headers: { ...session.headers(), Accept: 'application/json' },
      tags: { name: `${RECORD_PREFIX}${name}` },
      responseCallback: ANY_STATUS,
      timeout: '30s',
    });
    return { status: res.status, body: parseJson(res.body), userAgent: res.request && res.request.headers ? res.request.headers['User-Agent'] : null };
  };
  const answers = { counts: {} };
  answers.okapi = get(OKAPI_MODULES(tenant), 'GET /_/proxy/tenants/{tenant}/modules');
  answers.userAgent = answers.okapi.userAgent;
  if (answers.okapi.status !== 200) {
    answers.eureka = get(EUREKA_APPLICATIONS(tenant), 'GET /entitlements/{tenant}/applications');
    if (answers.eureka.status === 200) answers.version = get(EUREKA_VERSION, `GET ${EUREKA_VERSION}`);
  }
  for (const c of DATA_COUNTS) answers.counts[c.key] = get(c.path, c.name);
  const record = buildRecord({ tenant, answers, commit, load, env: __ENV });
  for (const p of record.problems) console.warn(`folio-perf: record of the run: ${p}`);
  return record;
}
