// InfluxDB 1.x HTTP client of the report (GET /query, database k6). A connection failure or an
// InfluxDB error becomes a ReportError with the fix, so the CLI prints one line.
// Credentials: user:password@ in the URL, or K6_INFLUXDB_USERNAME / K6_INFLUXDB_PASSWORD (k6's
// names), never printed: `url` and every message hold the URL without them.
import { influxEndpoint, influxQuery } from '../../dashboards/src/influx-query.mjs';
import { ReportError } from './errors.mjs';

export function influxClient(given, db = 'k6') {
  if (!given) throw new ReportError('no InfluxDB URL; fix: set FP_INFLUX_URL (e.g. http://127.0.0.1:58086) or pass --influx <url>');
  const url = influxEndpoint(given).base;
  const used = [];
  return {
    url,
    used, // every statement run ({id, text}), in order: the report's footer lists them
    async query(statement, id = `Q${used.length + 1}`) {
      const { error, series } = await influxQuery(given, db, statement);
      if (error) {
        if (/^HTTP 401|authorization failed|unable to parse authentication credentials/.test(error)) {
          throw new ReportError(`InfluxDB at ${url} wants credentials that may read database ${db} (${error.replace(/^HTTP 401: /, '').slice(0, 80)}); fix: set K6_INFLUXDB_USERNAME and K6_INFLUXDB_PASSWORD, as for k6's output`);
        }
        if (/not reachable/.test(error)) throw new ReportError(`${error}; fix: start the stack (make stack-up) or point FP_INFLUX_URL / --influx at the InfluxDB that recorded the run`);
        if (/database not found/.test(error)) throw new ReportError(`InfluxDB at ${url} has no database ${db}; fix: point FP_INFLUX_URL / --influx at the InfluxDB the run wrote to`);
        throw new ReportError(`InfluxDB at ${url} refused a report query (${error}); fix: check the InfluxDB version (1.x) and its log`);
      }
      used.push({ id, text: statement });
      return series;
    },
  };
}

/** series -> [{tags, rows: [{time, col: value, ...}]}] */
export function rowsOf(series) {
  return series.map((s) => ({
    tags: s.tags || {},
    rows: (s.values || []).map((v) => Object.fromEntries(s.columns.map((c, i) => [c, v[i]]))),
  }));
}
