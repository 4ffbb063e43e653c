// Which platform the target is, and what it runs, asked once in setup() (lib/platforms.js reads the
// answers): Okapi's module list first; Kong answers it 404 ("no Route matched"), then Eureka's
// entitlements. Every answer is expected (a 404 is information, not a failed request) and the
// requests carry their own names (prefix `discover `), so the run's per-API numbers leave them out.

import { send, ANY_STATUS } from './http.js';
import { parseJson } from '../folio.js';
import { OKAPI_MODULES, EUREKA_APPLICATIONS, detectPlatform } from '../platforms.js';

export const DISCOVER_PREFIX = 'discover ';

/**
 * @param {object} cfg the run's configuration
 * @param {object} session a logged-in Session (lib/k6/auth.js)
 * @returns {{platform, modules} | {error}}
 */
export function discoverPlatform(cfg, session) {
  const get = (path, name) => {
    const res = send('GET', `${cfg.folio.url}${path}`, null, {
      headers: { ...session.headers(), Accept: 'application/json' },
      tags: { name: `${DISCOVER_PREFIX}${name}` },
      responseCallback: ANY_STATUS,
      timeout: '30s',
    });
    return { status: res.status, body: parseJson(res.body) };
  };
  const tenant = cfg.folio.tenant;
  const okapi = get(OKAPI_MODULES(tenant), 'GET /_/proxy/tenants/{tenant}/modules');
  const eureka = okapi.status === 200 ? null : get(EUREKA_APPLICATIONS(tenant), 'GET /entitlements/{tenant}/applications');
  return detectPlatform({ okapi, eureka });
}

/**
 * The run's platform: PLATFORM when set (forced), else the one the target answers as.
 * Returns {platform, modules, why} or {error} (the cause and the fix).
 */
export function targetPlatform(cfg, session, forced) {
  const found = discoverPlatform(cfg, session);
  if (found.error) {
    if (!forced) return { error: `${found.error}; fix: set PLATFORM=okapi or PLATFORM=eureka (and UI_RELEASE), or check that FOLIO_URL points at Okapi or Kong` };
    return { platform: forced, modules: [], why: `PLATFORM=${forced} (${found.error})` };
  }
  if (forced) return { platform: forced, modules: found.modules, why: `PLATFORM=${forced} (the target answers as ${found.platform})` };
  return { platform: found.platform, modules: found.modules, why: `the target answers as ${found.platform}` };
}
