// Token handling that does not need k6: reading Set-Cookie / login bodies, and deciding when a VU
// must refresh. lib/k6/auth.js does the HTTP. FOLIO's access tokens live 10 minutes by default
// (mod-authtoken) and refresh tokens are single use, so each VU owns its session.

export const ACCESS_COOKIE = 'folioAccessToken';
export const REFRESH_COOKIE = 'folioRefreshToken';

// When to renew: the staff UI rotates its tokens once 80 % of the access token's lifetime has passed
// (stripes-core : src/components/Root/constants.js, RTR_AT_TTL_FRACTION = 0.8), so a VU does the
// same: 8 minutes into FOLIO's 10-minute tokens, 48 s into a 60-second one. A VU checks before each
// request, so the margin left (a fifth of the lifetime) must hold one request; it is never below 2 s.
export const REFRESH_AT_FRACTION = 0.8;
export const MIN_MARGIN_MS = 2_000;

export function refreshMarginMs(lifetimeMs) {
  if (!(lifetimeMs > 0)) return MIN_MARGIN_MS;
  return Math.max(MIN_MARGIN_MS, Math.round(lifetimeMs * (1 - REFRESH_AT_FRACTION)));
}

// How a request carries the access token: the X-Okapi-Token header (Okapi, as PTF's Orchid plan
// sends it) or the folioAccessToken cookie (Eureka, as the staff UI and PTF's Eureka plans send it).
// Never both: Okapi answers 400 and Kong 404 when a header and a cookie disagree. Over plain HTTP the
// cookie is written by hand: a cookie jar (k6's, Go's, JMeter's) keeps a Secure cookie for https.
export const TOKEN_CARRIERS = Object.freeze(['header', 'cookie']);

export function tokenHeaders(carrier, token) {
  return carrier === 'cookie' ? { Cookie: `${ACCESS_COOKIE}=${token}` } : { 'X-Okapi-Token': token };
}

// POST /authn/refresh reads the refresh token from its cookie only (mod-login, mod-login-keycloak).
export function refreshCookie(token) {
  return { Cookie: `${REFRESH_COOKIE}=${token}` };
}

/**
 * Parses one Set-Cookie header value: name, value and the attributes that matter here.
 * Returns null for a malformed header rather than throwing: a bad cookie must not abort a VU.
 */
export function parseSetCookie(header) {
  if (typeof header !== 'string') return null;
  const parts = header.split(';');
  const first = parts.shift();
  const eq = first.indexOf('=');
  if (eq <= 0) return null;
  const cookie = { name: first.slice(0, eq).trim(), value: first.slice(eq + 1).trim(), maxAge: null, expires: null, path: null };
  for (const p of parts) {
    const i = p.indexOf('=');
    const key = (i < 0 ? p : p.slice(0, i)).trim().toLowerCase();
    const val = i < 0 ? '' : p.slice(i + 1).trim();
    if (key === 'max-age') {
      const n = Number(val);
      if (Number.isFinite(n)) cookie.maxAge = n;
    } else if (key === 'expires') {
      const t = Date.parse(val);
      if (!Number.isNaN(t)) cookie.expires = t;
    } else if (key === 'path') {
      cookie.path = val;
    }
  }
  return cookie;
}

// Response headers as k6 or fetch give them: one string, several joined with ", " (k6 joins repeated
// headers), or an array. A comma also appears inside Expires dates, so split only before "name=".
export function splitSetCookie(value) {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(splitSetCookie);
  return String(value).split(/,\s*(?=[A-Za-z0-9_!#$%&'*+.^`|~-]+=)/).filter((s) => s.trim() !== '');
}

export function headerValue(headers, name) {
  if (!headers) return undefined;
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === want) return v;
  return undefined;
}

function safeJson(text) {
  if (typeof text !== 'string' || text === '') return null;
  try {
    return JSON.parse(text);
  } catch (_) {
    return null;
  }
}

/**
 * Builds a session from a /authn/login-with-expiry or /authn/refresh response (201, two cookies,
 * body with both expirations). Expiry is taken from the cookie's Max-Age (relative, so the local
 * clock's skew against the server does not matter), else from the body's ISO timestamp.
 */
export function sessionFromExpiryResponse(headers, bodyText, nowMs) {
  const cookies = {};
  for (const raw of splitSetCookie(headerValue(headers, 'set-cookie'))) {
    const c = parseSetCookie(raw);
    if (c) cookies[c.name] = c;
  }
  const access = cookies[ACCESS_COOKIE];
  const refresh = cookies[REFRESH_COOKIE];
  if (!access || access.value === '') return { error: `no ${ACCESS_COOKIE} cookie in the response` };
  if (!refresh || refresh.value === '') return { error: `no ${REFRESH_COOKIE} cookie in the response` };
  const body = safeJson(bodyText) || {};
  const accessExp = expiryOf(access, body.accessTokenExpiration, nowMs);
  const refreshExp = expiryOf(refresh, body.refreshTokenExpiration, nowMs);
  return {
    mode: 'expiry',
    accessToken: access.value,
    refreshToken: refresh.value,
    issuedAt: nowMs,
    accessExpiresAt: accessExp,
    refreshExpiresAt: refreshExp,
  };
}

function expiryOf(cookie, isoFromBody, nowMs) {
  if (cookie.maxAge !== null) return nowMs + cookie.maxAge * 1000;
  const t = Date.parse(isoFromBody);
  if (!Number.isNaN(t)) return t;
  if (cookie.expires !== null) return cookie.expires;
  return null; // unknown: treated as not expiring, as legacy tokens
}

// Reads `exp` from a JWT without verifying it (the server verifies; we only plan the refresh).
export function jwtExpiryMs(token) {
  if (typeof token !== 'string') return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const b64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const json = decodeBase64(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    const claims = JSON.parse(json);
    return typeof claims.exp === 'number' ? claims.exp * 1000 : null;
  } catch (_) {
    return null;
  }
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
// k6 has no atob/Buffer in every version; a small decoder keeps this module runtime-neutral.
function decodeBase64(s) {
  let bits = 0;
  let acc = 0;
  const bytes = [];
  for (const ch of s) {
    if (ch === '=') break;
    const v = B64.indexOf(ch);
    if (v < 0) throw new Error('bad base64');
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b < 0x80) out += String.fromCharCode(b);
    else if (b >= 0xc0 && b < 0xe0) out += String.fromCharCode(((b & 0x1f) << 6) | (bytes[++i] & 0x3f));
    else if (b >= 0xe0 && b < 0xf0) out += String.fromCharCode(((b & 0x0f) << 12) | ((bytes[++i] & 0x3f) << 6) | (bytes[++i] & 0x3f));
    else i += 3; // 4-byte sequences do not occur in JWT claims we read
  }
  return out;
}

/**
 * Session from the legacy POST /authn/login (older Okapi, or login-with-expiry answered 404):
 * token in the x-okapi-token header (or the body's okapiToken). Legacy tokens usually do not expire;
 * if the JWT carries exp, the VU logs in again before it (there is no refresh token to redeem).
 */
export function sessionFromLegacyResponse(headers, bodyText, nowMs) {
  const body = safeJson(bodyText) || {};
  const token = headerValue(headers, 'x-okapi-token') || body.okapiToken;
  if (!token) return { error: 'no x-okapi-token header and no okapiToken in the body' };
  return {
    mode: 'legacy',
    accessToken: token,
    refreshToken: null,
    issuedAt: nowMs,
    accessExpiresAt: jwtExpiryMs(token),
    refreshExpiresAt: null,
  };
}

/**
 * What the VU must do before its next request: 'none', 'refresh' (redeem the refresh token) or
 * 'login' (no usable refresh token: legacy session, or the refresh token itself is about to expire).
 */
export function renewalAction(session, nowMs) {
  if (!session || !session.accessToken) return 'login';
  if (session.accessExpiresAt === null || session.accessExpiresAt === undefined) return 'none';
  const lifetime = session.accessExpiresAt - session.issuedAt;
  const margin = refreshMarginMs(lifetime);
  if (session.accessExpiresAt - nowMs > margin) return 'none';
  if (!session.refreshToken) return 'login';
  if (session.refreshExpiresAt !== null && session.refreshExpiresAt !== undefined && session.refreshExpiresAt - nowMs <= margin) return 'login';
  return 'refresh';
}
