// Smallest real k6 run for the InfluxDB output test: a fixed number of requests
// to InfluxDB's own /ping (the only HTTP server the bare stack has), tagged with
// a templated `name` as every folio-perf request is.
import http from 'k6/http';
import { check } from 'k6';

export const options = {
  scenarios: { ping: { executor: 'shared-iterations', vus: 2, iterations: 40, maxDuration: '60s' } },
};

export default function () {
  const res = http.get(`${__ENV.TARGET}/ping`, { tags: { name: 'GET /ping' } });
  check(res, { 'ping is 204': (r) => r.status === 204 });
}
