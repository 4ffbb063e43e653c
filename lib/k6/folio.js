// The k6 client of the workflows: sends one request description (lib/folio.js; the CICO calls in
// lib/cico/api.js, mod-search's in lib/search/templates.js) the way the staff UI or PTF's plan does (X-Okapi-Tenant
// + token headers, JSON), tags it with its low-cardinality `name` (and the request's own constant
// tags, e.g. search's group and kind), records its business-rule checks and reports pass/fail and
// the request time. Requests leave through lib/k6/http.js.

import { check, sleep } from 'k6';
import { send } from './http.js';
import { thinkMs } from '../think.js';
import { jsonDocument } from '../folio.js';
import { unauthorized } from './auth.js';

// Teardown waits this long for a request k6 cut short to be committed or abandoned.
export { REQUEST_TIMEOUT } from './http.js';
// The UI's headers on a CORS preflight (Orchid plan-level and transaction headers).
const ORIGIN = 'http://localhost';

// The response as lib/folio.js's document: lookups by path answered by res.json(path) (gjson, in
// Go), so no JavaScript object tree is built per response. A failed request has no body.
function responseDocument(res) {
  if (typeof res.body !== 'string') return jsonDocument('');
  return { text: res.body, get: (path) => res.json(path) };
}

export function makeClient({ cfg, session, think, log }) {
  // The request parameters change only with the token: built once per request name and token,
  // not per request (each object costs k6's VM about a microsecond to build and k6 to read).
  let paramsToken = null;
  let params = new Map();
  const paramsFor = (req) => {
    const token = session.accessToken();
    if (token !== paramsToken) {
      paramsToken = token;
      params = new Map();
    }
    let p = params.get(req.name);
    if (p === undefined) {
      // The token as the platform wants it: X-Okapi-Token, or the folioAccessToken cookie (never both).
      const headers = { 'X-Okapi-Tenant': cfg.folio.tenant, ...session.tokenHeaders(), Accept: req.accept || 'application/json, text/plain' };
      // The browser sends Origin; PTF's JMeter plans (req.accept set) do not.
      if (!req.accept) headers.Origin = ORIGIN;
      if (req.body !== null) headers['Content-Type'] = 'application/json';
      p = { headers, tags: req.tags ? { name: req.name, ...req.tags } : { name: req.name } };
      params.set(req.name, p);
    }
    return p;
  };
  return {
    call(req) {
      let p;
      if (req.method === 'OPTIONS') {
        p = {
          headers: {
            Origin: ORIGIN,
            'Access-Control-Request-Method': req.preflightFor,
            'Access-Control-Request-Headers': session.carrier === 'cookie' ? 'content-type,x-okapi-tenant' : 'content-type,x-okapi-tenant,x-okapi-token',
          },
          tags: { name: req.name },
        };
      } else {
        const cause = session.ensureFresh();
        if (cause) {
          log.failure(req.name, `token renewal failed: ${cause}`);
          return { ok: false, durationMs: 0 };
        }
        p = paramsFor(req);
      }
      const res = send(req.method, cfg.folio.url + req.url, req.body, p);
      const v = req.verify(res.status, responseDocument(res));
      // One check per request, not one per rule: each check is one more sample through k6's metrics
      // engine and the output, beside the request's own eleven (http_reqs, timings). A passed request
      // counts under its rules together ("GET /users: status is 200, patron found"), a failed
      // one under its first failed rule's own name, so the summary still says which rule broke.
      check(res, { [v.ok ? req.checkName : req.checkNames[v.results.findIndex((r) => !r)]]: v.ok });
      if (!v.ok) log.failure(req.name, res.status === 0 ? `no response (${res.error})` : v.detail || v.failed.join(', '));
      // A 401 means the token was revoked or expired early (clock jump, restarted gateway):
      // count it, and log in afresh before the next request instead of failing until expiry.
      if (res.status === 401) {
        log.unauthorized();
        unauthorized.add(1);
        session.invalidate();
      }
      return { ok: v.ok, durationMs: res.timings.duration, value: v.value, status: res.status };
    },
    think(timer) {
      const ms = thinkMs(think, timer, Math.random);
      if (ms > 0) sleep(ms / 1000);
    },
    /**
     * A call outside the measured transactions (setup, teardown, a VU's re-read of an item after
     * a failure): the same request and headers, its `name` prefixed (prefix, e.g. 'teardown ') so
     * it never counts in the per-API numbers, no k6 check, no failure log. timeout: k6's, when
     * not the client's. Returns { ok, status, value, detail, error } (the request's verdict).
     */
    aside(req, { prefix = '', timeout } = {}) {
      const cause = session.ensureFresh();
      if (cause) return { ok: false, status: 0, value: null, detail: `token renewal failed: ${cause}`, error: cause };
      const base = paramsFor(req);
      const p = { headers: base.headers, tags: { ...base.tags, name: prefix + req.name } };
      if (timeout !== undefined) p.timeout = timeout;
      const res = send(req.method, cfg.folio.url + req.url, req.body, p);
      const v = req.verify(res.status, responseDocument(res));
      if (res.status === 401) {
        unauthorized.add(1);
        session.invalidate();
      }
      return { ok: v.ok, status: res.status, value: v.value, detail: v.detail, error: res.error || '' };
    },
  };
}

// Logs the first failures of a VU in full, then one in a hundred, so a broken target does not
// flood the console; counts 401s, which a correctly refreshing VU never sees.
export function failureLog(vu, first = 5) {
  let n = 0;
  const log = {
    unauthorizedCount: 0,
    failure(name, detail) {
      n++;
      if (n <= first || n % 100 === 0) console.warn(`VU ${vu}: ${name} failed: ${detail}${n > first ? ` (failure ${n})` : ''}`);
    },
    unauthorized() {
      log.unauthorizedCount++;
    },
  };
  return log;
}
