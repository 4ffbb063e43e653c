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
// FLOOR_RATE (requests per second, default: as fast as the VUs go) paces them: tools/bench-k6.mjs
// sets it so that the floor sends as many requests per second as the CICO run did. Each VU loops
// as a CICO VU does and sleeps until its next slot (its share of the rate, the request's own time
// included), rather than using k6's arrival-rate executor, whose per-iteration scheduling costs
// more than the request itself and would raise the floor. Paced, because k6's CPU per
// request and its memory depend on the request rate (fixed per-second work, the garbage between
// two collections) as well as on the VU count. bench-k6 also gives it the run's output (-o
// influxdb-lp), so that the floor carries what every CICO request carries to InfluxDB.

import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';

const vus = Number(__ENV.FLOOR_VUS || 20);
const duration = __ENV.FLOOR_DURATION || '10s';
const rate = Number(__ENV.FLOOR_RATE || 0);
if (!(Number.isFinite(rate) && rate >= 0)) throw `FLOOR_RATE "${__ENV.FLOOR_RATE}" is not a number of requests per second`;
export const options = {
  vus,
  duration,
  // Only k6's built-in metrics; the bench reads CPU from /proc, not from here.
  summaryTrendStats: ['avg', 'p(95)'],
};

const url = __ENV.FOLIO_URL + __ENV.FLOOR_PATH;
const params = { headers: { 'X-Okapi-Tenant': __ENV.FOLIO_TENANT, 'X-Okapi-Token': __ENV.FOLIO_TOKEN } };

// Seconds between two requests of one VU, and when this VU's next one is due (ms).
const period = rate > 0 ? vus / rate : 0;
let due = 0;

export default function () {
  if (period > 0) {
    const now = Date.now();
    // The first slot at a random phase, so that the VUs do not send in step.
    if (due === 0) due = now + Math.random() * period * 1000;
    if (due > now) sleep((due - now) / 1000);
    due += period * 1000;
  }
  const res = http.get(url, params);
  // A floor measured on errors would be meaningless: stop at the first one.
  if (res.status !== 200) exec.test.abort(`GET ${__ENV.FLOOR_PATH} answered ${res.status}: ${String(res.body).slice(0, 200)}`);
}

export function handleSummary(data) {
  return { [__ENV.FLOOR_OUT]: JSON.stringify({ requests: data.metrics.http_reqs.values.count }) };
}
