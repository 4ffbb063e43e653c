// The one place a request leaves k6: every request of the scripts (the workflows' calls through
// lib/k6/folio.js's client, logins and token refreshes through lib/k6/auth.js) goes through send(),
// so timeouts and what every request carries are set here once (setup's and teardown's calls too:
// the client's aside()).

import http from 'k6/http';

// A dead target must fail a request in seconds, not hang a VU for k6's default 60 s... but a
// 20-user wildcard-prefix search on a large index takes 20 s, so business calls get 60 s.
export const REQUEST_TIMEOUT = '60s';
export const LOGIN_TIMEOUT = '30s';

// A request's `name` tag: the method and templated path (lib/folio.js), never the URL itself. Without
// one k6 tags the request with its URL, query values (patron and item barcodes) and all.
const TEMPLATED = /^(?![a-z]+:\/\/)[^?#]+$/i;

/** http.request with the project's default timeout; params as k6's, with a templated name tag. */
export function send(method, url, body, params) {
  const name = params.tags && params.tags.name;
  if (typeof name !== 'string' || !TEMPLATED.test(name)) {
    throw new Error(`folio-perf: a ${method} request without a templated name tag (got ${typeof name === 'string' ? 'one with a query' : 'none'}); fix: send it through lib/k6/folio.js's client`);
  }
  if (params.timeout === undefined) params.timeout = REQUEST_TIMEOUT;
  return http.request(method, url, body, params);
}

export function cookieJar() {
  return new http.CookieJar();
}

export function expectedStatuses(...ranges) {
  return http.expectedStatuses(...ranges);
}

// For a request whose every answer is information, not a failure (a platform probe's 404, a poll
// of a reindex rebuilding its index): k6 counts none of them in http_req_failed.
export const ANY_STATUS = http.expectedStatuses({ min: 100, max: 599 });
