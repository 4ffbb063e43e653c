// k6 side of authentication: log in (login-with-expiry, or legacy /authn/login when the target
// answers 404), and refresh before the access token expires (lib/auth.js decides when). One
// Session per VU: refresh tokens are single use, so VUs must not share them. The tokens are read
// from the Set-Cookie headers and sent by hand (lib/auth.js tokenHeaders, refreshCookie), the way
// the platform wants them (lib/platforms.js): a cookie jar would hold them back over plain HTTP
// (they are Secure) and would add cookies the run did not choose.

import { Counter } from 'k6/metrics';
import { send, cookieJar, expectedStatuses, LOGIN_TIMEOUT } from './http.js';
import { sessionFromExpiryResponse, sessionFromLegacyResponse, renewalAction, tokenHeaders, refreshCookie } from '../auth.js';
import { errorDetail } from '../folio.js';
import { METRICS } from '../metrics.js';

// Created in init (k6 refuses new metrics later); every Session of the run adds to them.
const logins = new Counter(METRICS.authLogins);
const refreshes = new Counter(METRICS.authRefreshes);
const refreshRefused = new Counter(METRICS.authRefreshRefused);
export const unauthorized = new Counter(METRICS.authUnauthorized);

// Why a login failed, in terms of what the user can change.
export function loginFailure(cfg, res, path) {
  if (!res || res.status === 0) {
    return `FOLIO is not reachable at ${cfg.folio.url} (${(res && res.error) || 'no response'}); fix: start it (make run) or correct FOLIO_URL / folio.url in ${cfg.file}`;
  }
  const detail = errorDetail(res.status, typeof res.body === 'string' ? res.body : '');
  if (res.status === 400 && /tenant/i.test(detail)) return `FOLIO rejected tenant "${cfg.folio.tenant}" (${detail}); fix: set FOLIO_TENANT / folio.tenant to an existing tenant`;
  if (res.status === 422 || res.status === 401 || res.status === 403) return `FOLIO rejected the login of user "${cfg.folio.user}" (${res.status}); fix: check FOLIO_USER and FOLIO_PASSWORD`;
  if (res.status === 404) return `FOLIO has no login endpoint at ${cfg.folio.url}${path} (${detail}); fix: check that FOLIO_URL points at Okapi (or Kong on Eureka) and that tenant "${cfg.folio.tenant}" has mod-login enabled`;
  return `login at ${cfg.folio.url}${path} failed (${detail}); fix: check the target's logs`;
}

export class Session {
  /**
   * @param {object} cfg the run's configuration
   * @param {{token?: 'header'|'cookie'}} [opts] how requests carry the access token (the platform's,
   *   lib/platforms.js); X-Okapi-Token until the platform is known
   */
  constructor(cfg, { token = 'header' } = {}) {
    this.cfg = cfg;
    this.state = null;
    this.carrier = token;
    this.legacy = false; // set once the target answered 404 to login-with-expiry
    this.refreshes = 0;
    this.refused = 0;
    this.logins = 0;
  }

  post(path, body, extra = {}) {
    return send('POST', `${this.cfg.folio.url}${path}`, body === null ? null : JSON.stringify(body), {
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Okapi-Tenant': this.cfg.folio.tenant, ...(extra.headers || {}) },
      tags: { name: `POST ${path}` },
      // An empty jar per call: the request carries exactly the cookie given, and the answer's
      // cookies are read from its headers, not kept.
      jar: cookieJar(),
      timeout: LOGIN_TIMEOUT,
      // 404 from login-with-expiry is an answer (older Okapi), not a failed request.
      responseCallback: expectedStatuses({ min: 200, max: 299 }, ...(extra.expect || [])),
      ...(extra.params || {}),
    });
  }

  /** Logs in; returns null on success or the one-line cause. */
  login() {
    const creds = { username: this.cfg.folio.user, password: this.cfg.folio.password };
    this.logins++;
    logins.add(1);
    if (!this.legacy) {
      const res = this.post('/authn/login-with-expiry', creds, { expect: [404] });
      if (res.status === 201) {
        const s = sessionFromExpiryResponse(res.headers, res.body, Date.now());
        if (s.error) return `login-with-expiry answered 201 but ${s.error}; fix: check the target's mod-login version`;
        this.state = s;
        return null;
      }
      if (res.status !== 404) return loginFailure(this.cfg, res, '/authn/login-with-expiry');
      this.legacy = true;
    }
    const res = this.post('/authn/login', creds);
    if (res.status !== 201) return loginFailure(this.cfg, res, '/authn/login');
    const s = sessionFromLegacyResponse(res.headers, res.body, Date.now());
    if (s.error) return `login answered 201 but ${s.error}; fix: check the target's mod-login version`;
    this.state = s;
    return null;
  }

  // Redeems the refresh token for a new pair, keeping the rotated refresh token (the old one is
  // single use). A refusal (422: reused, revoked or expired; on Keycloak a reuse also ends the
  // session, so its rotated token is refused too) is counted, and a fresh login restores the session.
  refresh() {
    this.refreshes++;
    refreshes.add(1);
    const res = this.post('/authn/refresh', null, { headers: refreshCookie(this.state.refreshToken), expect: [422] });
    if (res.status === 201) {
      const s = sessionFromExpiryResponse(res.headers, res.body, Date.now());
      if (!s.error) {
        this.state = s;
        return null;
      }
    }
    if (res.status === 422) {
      this.refused++;
      refreshRefused.add(1);
    }
    return this.login();
  }

  /** Makes sure the access token outlives the next request; returns null or the cause. */
  ensureFresh() {
    const action = renewalAction(this.state, Date.now());
    if (action === 'none') return null;
    if (action === 'refresh') return this.refresh();
    return this.login();
  }

  // The next ensureFresh() logs in again.
  invalidate() {
    this.state = null;
  }

  accessToken() {
    return this.state ? this.state.accessToken : '';
  }

  /** The access token as this session's platform wants it: one header, X-Okapi-Token or Cookie. */
  tokenHeaders() {
    return tokenHeaders(this.carrier, this.accessToken());
  }

  headers() {
    return { 'X-Okapi-Tenant': this.cfg.folio.tenant, ...this.tokenHeaders() };
  }
}
