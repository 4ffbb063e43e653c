// Runs InfluxQL over InfluxDB 1.x's HTTP API (/query), the way Grafana's
// InfluxDB datasource does for a raw query. Used by the dashboard e2e test.

/**
 * Where and as whom InfluxDB is reached, as k6's output does it: the URL may carry user:password@,
 * else K6_INFLUXDB_USERNAME and K6_INFLUXDB_PASSWORD from the environment. Returns the URL without
 * the credentials (`base`, also what a message may print), and the headers that carry them (HTTP
 * basic auth, which InfluxDB 1.x takes).
 */
export function influxEndpoint(url, env = process.env) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return { base: redactUrl(String(url)).replace(/\/$/, ''), headers: {} };
  }
  let user = decodeURIComponent(u.username);
  let password = decodeURIComponent(u.password);
  u.username = '';
  u.password = '';
  if (!user && env.K6_INFLUXDB_USERNAME) {
    user = env.K6_INFLUXDB_USERNAME;
    password = env.K6_INFLUXDB_PASSWORD ?? '';
  }
  const headers = user ? { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` } : {};
  return { base: u.toString().replace(/\/$/, ''), headers };
}

/** A URL as a message may show it: user:password@ replaced, also in one that does not parse. */
export function redactUrl(s) {
  return s.replace(/\/\/[^/@\s]*@/g, '//<credentials>@');
}

/**
 * Runs one statement; returns { error, series } where error is InfluxDB's own
 * message (statement error or HTTP failure) and series its result series.
 */
export async function influxQuery(baseUrl, db, query, { method = 'GET' } = {}) {
  const params = new URLSearchParams({ db, q: query, epoch: 'ms' });
  const { base, headers } = influxEndpoint(baseUrl);
  let res;
  try {
    res = await fetch(`${base}/query?${params}`, { method, headers });
  } catch (err) {
    return { error: `InfluxDB not reachable at ${base}: ${err.cause?.code ?? err.message}`, series: [] };
  }
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return { error: `HTTP ${res.status}: ${text.slice(0, 200)}`, series: [] };
  }
  if (body.error) return { error: body.error, series: [] };
  const result = body.results?.[0] ?? {};
  if (result.error) return { error: result.error, series: [] };
  return { error: null, series: result.series ?? [] };
}

/** True when a series has at least one row with a non-null value column. */
export function hasValues(series) {
  return (series.values ?? []).some((row) => row.slice(1).some((v) => v !== null));
}

/** Writes line protocol (ns precision) into db; throws with InfluxDB's message. */
export async function influxWrite(baseUrl, db, lines) {
  const { base, headers } = influxEndpoint(baseUrl);
  const res = await fetch(`${base}/write?db=${encodeURIComponent(db)}`, {
    method: 'POST',
    headers,
    body: lines.join('\n'),
  });
  if (res.status !== 204) throw new Error(`InfluxDB write failed: HTTP ${res.status} ${await res.text()}`);
}
