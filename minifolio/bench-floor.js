// The floor under `make bench-minifolio`'s CICO figure: the cheapest request each part of the
// stack can serve, so the CICO cost per transaction can be compared with what the architecture
// (k6 -> gateway -> module process -> PostgreSQL) costs before any business logic.
//
//   FLOOR_PATH=/admin/health           answered by the gateway itself: k6's own cost per request
//   FLOOR_PATH=/groups?limit=1         gateway -> mod-users -> one indexed SELECT: the cheapest
//                                      storage call, what every CICO request costs at least
//
// Run by minifolio/bench.sh with FOLIO_URL, FOLIO_TENANT and FOLIO_TOKEN in the environment (not on
// the command line, where `ps` would show the token), FLOOR_VUS VUs for FLOOR_DURATION.
// FLOOR_SLEEP (seconds after each request, default none) paces the VUs: tools/bench-k6.sh sets it
// so that the floor sends as many requests per second as the CICO run did, because k6's memory
// depends on the request rate (the garbage between two collections) as well as on the VU count.

import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';

export const options = {
  vus: Number(__ENV.FLOOR_VUS || 20),
  duration: __ENV.FLOOR_DURATION || '10s',
  // Only k6's built-in metrics; the bench reads CPU from /proc, not from here.
  summaryTrendStats: ['avg', 'p(95)'],
};

const url = __ENV.FOLIO_URL + __ENV.FLOOR_PATH;
const params = { headers: { 'X-Okapi-Tenant': __ENV.FOLIO_TENANT, 'X-Okapi-Token': __ENV.FOLIO_TOKEN } };
const pause = Number(__ENV.FLOOR_SLEEP || 0);
if (!(Number.isFinite(pause) && pause >= 0)) throw `FLOOR_SLEEP "${__ENV.FLOOR_SLEEP}" is not a number of seconds`;

export default function () {
  const res = http.get(url, params);
  // A floor measured on errors would be meaningless: stop at the first one.
  if (res.status !== 200) exec.test.abort(`GET ${__ENV.FLOOR_PATH} answered ${res.status}: ${String(res.body).slice(0, 200)}`);
  if (pause > 0) sleep(pause);
}

export function handleSummary(data) {
  return { [__ENV.FLOOR_OUT]: JSON.stringify({ requests: data.metrics.http_reqs.values.count }) };
}
