// Runs InfluxQL over InfluxDB 1.x's HTTP API (/query), the way Grafana's
// InfluxDB datasource does for a raw query. Used by the dashboard e2e test.

/**
 * Runs one statement; returns { error, series } where error is InfluxDB's own
 * message (statement error or HTTP failure) and series its result series.
 */
export async function influxQuery(baseUrl, db, query, { method = 'GET' } = {}) {
  const params = new URLSearchParams({ db, q: query, epoch: 'ms' });
  let res;
  try {
    res = await fetch(`${baseUrl.replace(/\/$/, '')}/query?${params}`, { method });
  } catch (err) {
    return { error: `InfluxDB not reachable at ${baseUrl}: ${err.cause?.code ?? err.message}`, series: [] };
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
  const res = await fetch(`${baseUrl.replace(/\/$/, '')}/write?db=${encodeURIComponent(db)}`, {
    method: 'POST',
    body: lines.join('\n'),
  });
  if (res.status !== 204) throw new Error(`InfluxDB write failed: HTTP ${res.status} ${await res.text()}`);
}
