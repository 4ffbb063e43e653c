// One k6 run written by two outputs at once, k6's "influxdb" and folio-perf's "influxdb-lp"
// (k6/influxout), into two databases: tests/e2e/stack.test.mjs compares them point by point.
// The samples are chosen to cover line protocol's corners: tags with spaces, commas, equals signs
// and quotes, an empty tag value, a group, the url tag written as a field, counters, rates, trends.
import http from 'k6/http';
import { check, group } from 'k6';
import { Trend, Rate, Counter } from 'k6/metrics';

export const options = {
  scenarios: { mix: { executor: 'shared-iterations', vus: 2, iterations: 20, maxDuration: '60s' } },
};

const odd = new Trend('lp_odd_trend', true);
const ok = new Rate('lp_rate');
const n = new Counter('lp_counter');

export default function () {
  const res = http.get(`${__ENV.TARGET}/ping?x=a b&y="q"`, { tags: { name: 'GET /ping' } });
  check(res, { 'ping is 204': (r) => r.status === 204, 'a check, with "quotes" = odd': () => true });
  group('a group, with spaces', () => {
    http.get(`${__ENV.TARGET}/ping`, { tags: { name: 'GET /ping (grouped)' } });
  });
  odd.add(Math.random() * 100, { kind: 'a=b, c d', empty: '', quote: 'say "hi" \\ there' });
  ok.add(Math.random() < 0.5, { transaction: 'check-out' });
  n.add(3);
}
