// FOLIO's two platforms as a client meets them, and how a run tells which one it is talking to.
// Okapi (one gateway, mod-authtoken) lists a tenant's enabled modules at
// GET /_/proxy/tenants/{tenant}/modules; Eureka (Kong, a sidecar per module, Keycloak) has no
// /_/proxy and lists the applications entitled to the tenant, each with its modules, at
// GET /entitlements/{tenant}/applications (mgr-tenant-entitlements, read by stripes-core 11's
// discoverServices.js) and Kong's own version at GET /version. What differs for a workflow is data
// here, looked up by name: how the access token travels. Pure: lib/k6/platform.js asks the target.

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

// Where each platform lists what a tenant runs; the paths a run asks, in this order.
export const OKAPI_MODULES = (tenant) => `/_/proxy/tenants/${encodeURIComponent(tenant)}/modules`;
export const EUREKA_APPLICATIONS = (tenant) => `/entitlements/${encodeURIComponent(tenant)}/applications?limit=500`;

/**
 * A FOLIO module id split as Okapi does: the version starts at the first "-" followed by a digit
 * ("mod-circulation-storage-14.0.0" -> mod-circulation-storage, 14.0.0; "folio_checkout-12.0.2").
 */
export function splitModuleId(id) {
  const m = /^(.+?)-(\d.*)$/.exec(String(id));
  return m ? { name: m[1], version: m[2] } : { name: String(id), version: null };
}

const str = (v) => (typeof v === 'string' && v !== '' ? v : null);

function moduleOf(m) {
  if (!m || typeof m !== 'object') return null;
  const id = str(m.id);
  const s = id ? splitModuleId(id) : { name: null, version: null };
  const name = str(m.name) || s.name;
  return name ? { name, version: str(m.version) || s.version } : null;
}

/** Okapi's module list ([{id}, ...]) -> [{name, version}], or null when it is not one. */
export function okapiModules(body) {
  if (!Array.isArray(body)) return null;
  return body.map(moduleOf).filter(Boolean);
}

/**
 * Eureka's entitlements ({applicationDescriptors: [{modules, uiModules}]}) -> [{name, version}]
 * of every backend and UI module, or null when it is not one.
 */
export function eurekaModules(body) {
  const apps = body && Array.isArray(body.applicationDescriptors) ? body.applicationDescriptors : null;
  if (!apps) return null;
  const out = [];
  for (const a of apps) {
    for (const list of [a && a.modules, a && a.uiModules]) {
      if (Array.isArray(list)) for (const m of list.map(moduleOf)) if (m) out.push(m);
    }
  }
  return out;
}

/**
 * The platform from the two discovery answers ({status, body} each; eureka absent when Okapi
 * answered). Returns {platform, modules} or {error} naming both answers.
 */
export function detectPlatform({ okapi, eureka }) {
  const okapiList = okapi && okapi.status === 200 ? okapiModules(okapi.body) : null;
  if (okapiList) return { platform: 'okapi', modules: okapiList };
  const eurekaList = eureka && eureka.status === 200 ? eurekaModules(eureka.body) : null;
  if (eurekaList) return { platform: 'eureka', modules: eurekaList };
  const st = (a) => (a ? a.status : 'no request');
  return { error: `the target answered neither Okapi's module list (${st(okapi)}) nor Eureka's entitlements (${st(eureka)})` };
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
