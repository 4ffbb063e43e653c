// InfluxDB 1.x HTTP client of the report (GET /query, database k6). A connection failure or an
// InfluxDB error becomes a ReportError with the fix, so the CLI prints one line.
import { influxQuery } from '../../dashboards/src/influx-query.mjs';
import { ReportError } from './errors.mjs';

export function influxClient(url, db = 'k6') {
  if (!url) throw new ReportError('no InfluxDB URL; fix: set FP_INFLUX_URL (e.g. http://127.0.0.1:58086) or pass --influx <url>');
  const used = [];
  return {
    url,
    used, // every statement run ({id, text}), in order: the report's footer lists them
    async query(statement, id = `Q${used.length + 1}`) {
      const { error, series } = await influxQuery(url, db, statement);
      if (error) {
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
