// FOLIO's two platforms as a client meets them, and which one a run is talking to. Okapi (one
// gateway, mod-authtoken) lists a tenant's enabled modules at GET /_/proxy/tenants/{tenant}/modules;
// Eureka (Kong, a sidecar per module, Keycloak) has no /_/proxy and lists the applications entitled
// to the tenant at GET /entitlements/{tenant}/applications; setup() reads both into the run's record
// (lib/record.js). What differs for a workflow is data here, looked up by name: how the access token
// travels. Pure.

import { TOKEN_CARRIERS } from './auth.js';

export const PLATFORMS = Object.freeze({
  // PTF's Orchid plan sends X-Okapi-Token on every call.
  okapi: Object.freeze({ name: 'okapi', label: 'Okapi', token: 'header' }),
  // The staff UI on Eureka and PTF's Eureka plans send the folioAccessToken cookie and no token header.
  eureka: Object.freeze({ name: 'eureka', label: 'Eureka', token: 'cookie' }),
});
for (const p of Object.values(PLATFORMS)) if (!TOKEN_CARRIERS.includes(p.token)) throw new Error(`platform ${p.name}: token carrier ${p.token}`);

export function platform(name) {
  const p = Object.prototype.hasOwnProperty.call(PLATFORMS, name) ? PLATFORMS[name] : null;
  if (!p) throw new Error(`unknown platform "${name}"; known: ${Object.keys(PLATFORMS).join(', ')}`);
  return p;
}

/** PLATFORM: a platform name, or null (unset: the one the target answers as, found in setup). */
export function parsePlatform(value) {
  if (value === undefined || value === '') return null;
  if (!Object.prototype.hasOwnProperty.call(PLATFORMS, value)) {
    throw new Error(`PLATFORM "${value}" is not a FOLIO platform; fix: use ${Object.keys(PLATFORMS).map((p) => `PLATFORM=${p}`).join(' or ')}, or unset it to take the target's`);
  }
  return value;
}

/**
 * The run's platform from the record setup() took (lib/record.js: Okapi's module list, else
 * Eureka's entitlements), or PLATFORM when set (forced). Returns {platform, modules, why} or {error}
 * with the cause and the fix.
 */
export function platformOfRecord(record, forced) {
  const found = record && record.platform ? String(record.platform).toLowerCase() : null;
  const modules = (record && record.modules) || [];
  if (forced) return { platform: forced, modules, why: found ? `PLATFORM=${forced} (the target answers as ${found})` : `PLATFORM=${forced}` };
  if (!found || !Object.prototype.hasOwnProperty.call(PLATFORMS, found)) {
    const why = record && record.problems && record.problems.length ? record.problems[0] : 'no module list';
    return { error: `the target's platform is unknown (${why}); fix: set PLATFORM=okapi or PLATFORM=eureka (and UI_RELEASE), or check that FOLIO_URL points at Okapi or Kong` };
  }
  return { platform: found, modules, why: `the target answers as ${found}` };
}

/** Numeric version parts ("24.4.5" -> [24, 4, 5]; "1.13.0-SNAPSHOT.12" -> [1, 13, 0]), or null. */
export function versionParts(v) {
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(String(v || ''));
  return m ? [Number(m[1]), Number(m[2] || 0), Number(m[3] || 0)] : null;
}

/** Whether version a >= b (both as versionParts accepts them); false when a is unreadable. */
export function atLeast(a, b) {
  const x = versionParts(a);
  const y = versionParts(b);
  if (!x || !y) return false;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return true;
}

/** The version of a named module in a discovered list, or null. */
export function versionOf(modules, name) {
  const m = (modules || []).find((x) => x.name === name);
  return m ? m.version : null;
}
