// k6 client for lib/transactions.js: sends one request description from lib/folio.js the way
// the staff UI does (X-Okapi-Tenant + token headers, JSON), tags it with its low-cardinality
// `name`, records its business-rule checks and reports pass/fail and the request time.

import http from 'k6/http';
import { check, sleep } from 'k6';
import { thinkMs } from '../transactions.js';

const REQUEST_TIMEOUT = '60s';
// The UI's headers on a CORS preflight (Orchid plan-level and transaction headers).
const ORIGIN = 'http://localhost';

// k6 check names "<request name>: <rule>", built once per pair instead of once per request.
const checkNames = new Map();
function checkName(reqName, rule) {
  const key = reqName + '\u0000' + rule;
  let n = checkNames.get(key);
  if (n === undefined) {
    n = `${reqName}: ${rule}`;
    checkNames.set(key, n);
  }
  return n;
}

export function makeClient({ cfg, session, think, log }) {
  const base = cfg.folio.url;
  // The request headers change only with the token: built once per token, not per request.
  let headersFor = null;
  let getHeaders = null;
  let postHeaders = null;
  const requestHeaders = (withBody) => {
    const h = session.headers();
    if (headersFor !== h['X-Okapi-Token']) {
      headersFor = h['X-Okapi-Token'];
      getHeaders = { ...h, Accept: 'application/json, text/plain', Origin: ORIGIN };
      postHeaders = { ...getHeaders, 'Content-Type': 'application/json' };
    }
    return withBody ? postHeaders : getHeaders;
  };
  return {
    call(req) {
      let headers;
      if (req.method === 'OPTIONS') {
        headers = {
          Origin: ORIGIN,
          'Access-Control-Request-Method': req.preflightFor,
          'Access-Control-Request-Headers': 'content-type,x-okapi-tenant,x-okapi-token',
        };
      } else {
        const cause = session.ensureFresh();
        if (cause) {
          log.failure(req.name, `token renewal failed: ${cause}`);
          return { ok: false, durationMs: 0 };
        }
        headers = requestHeaders(req.body !== null);
      }
      const res = http.request(req.method, base + req.url, req.body, {
        headers,
        tags: { name: req.name },
        timeout: REQUEST_TIMEOUT,
      });
      const body = typeof res.body === 'string' ? res.body : '';
      const v = req.verify(res.status, body);
      // Plain booleans, not one closure per rule: k6's check() takes either.
      const sets = {};
      for (let i = 0; i < v.rules.length; i++) sets[checkName(req.name, v.rules[i][0])] = v.rules[i][1];
      check(res, sets);
      if (!v.ok) log.failure(req.name, res.status === 0 ? `no response (${res.error})` : v.detail || v.failed.join(', '));
      // A 401 means the token was revoked or expired early (clock jump, restarted gateway):
      // count it, and log in afresh before the next request instead of failing until expiry.
      if (res.status === 401) {
        log.unauthorized();
        session.invalidate();
      }
      return { ok: v.ok, durationMs: res.timings.duration, value: v.value };
    },
    think(timer) {
      const ms = thinkMs(think, timer, Math.random);
      if (ms > 0) sleep(ms / 1000);
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
