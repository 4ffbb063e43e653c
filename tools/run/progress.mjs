// Progress of a run whose output is not a terminal (CI logs, `make test`): one line every
// PROGRESS_EVERY seconds with the requests of that interval, read from InfluxDB. On a terminal k6
// shows its own progress bar instead. A timer of this process, so it ends with the run and never
// outlives the front door.
import { METRICS, TAGS } from '../../lib/metrics.js';
import { influxEndpoint } from '../../dashboards/src/influx-query.mjs';

/** The InfluxQL that counts the run's requests of the last `everyS` seconds, by outcome. */
export function progressQuery(testid, everyS) {
  return `SELECT count("value") FROM "${METRICS.httpReqs}" WHERE "${TAGS.testid}" = '${testid}' AND time > now() - ${everyS}s GROUP BY "expected_response"`;
}

/** "N requests (F failed)" from the query's series (k6 tags a failed request expected_response=false). */
export function countRequests(series) {
  let ok = 0;
  let bad = 0;
  for (const s of series || []) {
    const c = s.values?.[0]?.[1] || 0;
    if (s.tags?.expected_response === 'false') bad += c;
    else ok += c;
  }
  return `${ok + bad} requests (${bad} failed)`;
}

/** One progress line; counted: the requests text, or null when InfluxDB did not answer. */
export function progressLine(elapsedS, counted, everyS, testid) {
  const t = `${Math.floor(elapsedS / 60)} min ${Math.floor(elapsedS % 60)} s in`;
  const what = counted === null ? 'InfluxDB did not answer' : `${counted} in the last ${everyS} s`;
  return `==> progress: ${t}, ${what} (testid ${testid})`;
}

async function count(influxUrl, testid, everyS) {
  const params = new URLSearchParams({ db: 'k6', q: progressQuery(testid, everyS) });
  try {
    // InfluxDB's credentials (K6_INFLUXDB_USERNAME/PASSWORD, as k6's output takes them) as a header.
    const { base, headers } = influxEndpoint(influxUrl);
    const res = await fetch(`${base}/query?${params}`, { headers, signal: AbortSignal.timeout(5000) });
    if (!res.ok) return null;
    const body = await res.json();
    return countRequests(body.results?.[0]?.series);
  } catch {
    return null;
  }
}

/** Starts the lines; returns stop(). */
export function startProgress({ influxUrl, testid, everyS, write = (l) => process.stdout.write(`${l}\n`) }) {
  const t0 = Date.now();
  let stopped = false;
  const timer = setInterval(async () => {
    const counted = await count(influxUrl, testid, everyS);
    if (!stopped) write(progressLine((Date.now() - t0) / 1000, counted, everyS, testid));
  }, everyS * 1000);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
