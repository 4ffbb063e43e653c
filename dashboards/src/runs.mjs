// A run in Grafana: where it starts and ends, and links that open a dashboard on it. Nothing in
// InfluxDB marks a run's window, so it is derived from its samples: k6 writes the `vus` Gauge of
// every run once a second from its start to its end, tagged with its testid.
import { METRICS } from '../../lib/metrics.js';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { DATASOURCE, influxql, tablePanel } from './panels.mjs';

const VUS = METRICS.vus;

/**
 * The first and the last `vus` sample of the runs `where` selects, as InfluxQL selectors: without
 * another field a selector returns its sample's own time, which is the run's start or end. No
 * $timeFilter: the window is the run's whatever the dashboard's time range.
 */
export function windowQuery(fn, where, alias) {
  return `SELECT ${fn}("value") AS "${alias}" FROM "${VUS}" WHERE ${where} GROUP BY "testid"`;
}

/**
 * Two annotations, "Run start" and "Run end", at the first and last sample of the selected run:
 * the window on every time series panel, and the edges to read a ramp-up or a drain against.
 * Grafana's InfluxQL annotation places an event at each returned row's time.
 */
export function runWindowAnnotations(where) {
  return [
    ['Run start', 'first', 'users at start', 'green'],
    ['Run end', 'last', 'users at end', 'red'],
  ].map(([name, fn, alias, colour]) =>
    new dashboard.AnnotationQueryBuilder()
      .name(name)
      .datasource({ ...DATASOURCE })
      .enable(true)
      .iconColor(colour)
      .target({
        build: () => ({
          refId: 'Anno',
          datasource: { ...DATASOURCE },
          rawQuery: true,
          query: windowQuery(fn, where, alias),
          // The fields Grafana's InfluxQL annotation editor writes (the row's time is the event's).
          queryType: 'tags',
          fromAnnotations: true,
          titleColumn: '',
          textColumn: alias,
          tagsColumn: '',
          timeEndColumn: '',
          _implementsDataqueryVariant() {},
        }),
      }),
  );
}

/**
 * URL of the single-run dashboard `uid` on one row of a runs table: its run variable set to the
 * row's testid and the time range to the row's window. `${__value.time}` is the row's first time
 * field (the start); `end` is the second, named by the organize step of runsTable.
 */
export function openRunUrl(uid, variable = 'testid') {
  return `/d/${uid}/?var-${variable}=\${__data.fields.testid}&var-release=$__all&from=\${__value.time}&to=\${__data.fields.end.numeric}`;
}

/**
 * A table of the runs `where` selects, one row each: testid, start and end (first and last `vus`
 * sample), with `links` on the testid cell. Two queries joined on testid: InfluxQL cannot return
 * two sample times in one row, and Grafana names the joined frame's two time fields "Time 1" and
 * "Time 2", renamed here.
 */
export function runsTable({ title, description, where, links }) {
  return tablePanel({
    title,
    description,
    unit: 'none',
    targets: [
      influxql('A', windowQuery('first', where, 'users at start'), { format: 'table' }),
      influxql('B', windowQuery('last', where, 'users at end'), { format: 'table' }),
    ],
    transformations: [
      { id: 'joinByField', options: { byField: 'testid', mode: 'inner' } },
      {
        id: 'organize',
        options: {
          excludeByName: { 'users at start': true, 'users at end': true },
          indexByName: { testid: 0, 'Time 1': 1, 'Time 2': 2 },
          renameByName: { 'Time 1': 'start', 'Time 2': 'end' },
        },
      },
    ],
    overrides: [
      { name: 'testid', properties: [{ id: 'displayName', value: 'Run' }, { id: 'links', value: links }] },
      { name: 'start', properties: [{ id: 'unit', value: 'dateTimeAsIso' }] },
      { name: 'end', properties: [{ id: 'unit', value: 'dateTimeAsIso' }] },
    ],
  });
}
