// The metric contract: the names of the metrics and tags the scripts record and that the
// summaries, thresholds, dashboards (dashboards/src) and tests read. One home, so a rename
// cannot leave a reader behind. Pure (no k6 imports): node's tests and the dashboard generator
// import it as they are.

// k6's built-in HTTP metrics and the project's own ones.
export const METRICS = Object.freeze({
  httpDuration: 'http_req_duration',
  httpReqs: 'http_reqs',
  httpFailed: 'http_req_failed',
  checks: 'checks',
  vus: 'vus', // k6's Gauge of active virtual users
  iterations: 'iterations', // k6's Counter of completed iterations (make bench-k6 reads it live)
  // check-in/check-out: the sum of a passed transaction's request times (ms), and failures.
  transactionDuration: 'transaction_duration',
  transactionFailed: 'transaction_failed',
  // mod-search: requests slower than SEARCH_SLOW_MS (Counter, tagged like the request), so the
  // report's "requests over 700 ms" is an exact count per template, not read off a percentile.
  searchSlow: 'search_slow_requests',
  // The background reindex of another tenant: 1 while it runs, 0 when done (Gauge, sampled at
  // each progress poll); its duration (Trend, ms, one sample when it ends); when it started and
  // ended (Gauges, epoch ms), for the summary's window.
  reindexRunning: 'reindex_running',
  reindexDuration: 'reindex_duration',
  reindexStartedAt: 'reindex_started_at',
  reindexEndedAt: 'reindex_ended_at',
  // The VUs' sessions (Counters): logins, token refreshes, refreshes the target refused (422: the
  // refresh token was reused, revoked or expired; the VU then logs in again) and 401 answers, which a
  // VU that refreshes in time never gets.
  authLogins: 'auth_logins',
  authRefreshes: 'auth_refreshes',
  authRefreshRefused: 'auth_refresh_refused',
  authUnauthorized: 'auth_unauthorized',
  // Telegraf's, whatever the deployment (telegraf/*.conf write them): CPU and memory per module,
  // PostgreSQL's counters, OpenSearch's.
  moduleStats: 'module_stats',
  postgresql: 'postgresql',
  opensearch: 'opensearch',
});

// Telegraf's measurements (above); every other metric of METRICS is one k6 records.
export const TELEGRAF_METRICS = Object.freeze([METRICS.moduleStats, METRICS.postgresql, METRICS.opensearch]);
// What a run writes to InfluxDB (K6_INFLUXDB_METRICS, set by folio-perf run and the k8s settings):
// k6's metrics of METRICS, which are all that the dashboards, the report and the verdict read. A CICO
// request makes eleven samples and three of them are read; k6's other built-ins (http_req_waiting,
// data_received, iteration_duration, ...) are opt-in: K6_INFLUXDB_METRICS='*', or a longer list.
export const STORED_METRICS = Object.freeze(Object.values(METRICS).filter((m) => !TELEGRAF_METRICS.includes(m)));

// Fields of module_stats.
export const FIELDS = Object.freeze({ cpuPercent: 'cpu_percent', memRss: 'mem_rss_bytes' });

// Tags. Run-wide ones are on every sample; the rest on the samples of the named metrics.
export const TAGS = Object.freeze({
  testid: 'testid',
  workflow: 'workflow',
  release: 'release',
  target: 'target',
  vus: 'vus', // the scenario's user count
  name: 'name', // a request's low-cardinality label (method + templated path, or the report's label)
  transaction: 'transaction', // check-in | check-out
  group: 'group', // search: the PTF fragment
  kind: 'kind', // search: regular | wildcard | wildcard-prefix
  phase: 'phase', // search: baseline | reindex
  tenant: 'tenant', // reindex_running
  stage: 'stage', // reindex_running
  outcome: 'outcome', // reindex_duration
});
export const RUN_TAGS = Object.freeze([TAGS.testid, TAGS.workflow, TAGS.release, TAGS.target]);

// k6's system tags on every sample (options.systemTags): k6's defaults without `url`. Every
// request carries its templated `name` (lib/k6/http.js refuses one without), which is all the
// tables, dashboards and thresholds read; `url` would hold the URL with its query values, patron
// and item barcodes among them, a new tag set per request that k6 keeps for the rest of the run,
// and a field of every sample in InfluxDB.
export const SYSTEM_TAGS = Object.freeze(['proto', 'subproto', 'status', 'method', 'name', 'group', 'check', 'error', 'error_code',
  'tls_version', 'scenario', 'service', 'expected_response']);

// k6's sub-metric key, the name thresholds and handleSummary's data use: metric{tag:value,...},
// tags in the order given (k6 keeps the threshold's spelling).
export function subMetric(metric, tags) {
  const t = Object.entries(tags).map(([k, v]) => `${k}:${v}`);
  return t.length ? `${metric}{${t.join(',')}}` : metric;
}
// A transaction's times, and one API's request times: what thresholds, baselines and the
// verdict key their rows by.
export const txKey = (t) => subMetric(METRICS.transactionDuration, { [TAGS.transaction]: t });
export const apiKey = (n) => subMetric(METRICS.httpDuration, { [TAGS.name]: n });

// The release reports' "slow API" line for check-in/check-out: p75 above 100 ms.
export const SLOW_API_P75_MS = 100;
// The mod-search report counts the requests that took longer than 700 ms.
export const SEARCH_SLOW_MS = 700;

export const SEARCH_GROUPS = Object.freeze(['authority', 'boolean', 'contributors', 'filter', 'keyword', 'subjects', 'title']);
// wildcard: a trailing * (w*); wildcard-prefix: a leading * (*w, *w*), the expensive kind.
export const SEARCH_KINDS = Object.freeze(['regular', 'wildcard', 'wildcard-prefix']);
export const PHASES = Object.freeze(['baseline', 'reindex']);
export const REINDEX_OUTCOMES = Object.freeze(['completed', 'failed', 'timeout']);
