// Grafana's variable substitution as reproduced in dashboards/src/grafana-vars.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  calculateInterval,
  escapeRegex,
  formatVariable,
  interpolateQuery,
  panelQueries,
  parseInterval,
  roundInterval,
  secondsToHms,
} from '../../dashboards/src/grafana-vars.mjs';

test('intervals snap to Grafana\'s nice values and format like Grafana', () => {
  assert.equal(roundInterval(1200), 1000);
  assert.equal(roundInterval(8000), 10000);
  assert.equal(roundInterval(100000), 120000);
  assert.equal(secondsToHms(120), '2m');
  assert.equal(secondsToHms(0.2), '200ms');
  assert.equal(secondsToHms(7200), '2h');
  // 1 h over 1200 px: 3 s per point → 2 s
  assert.deepEqual(calculateInterval(0, 3_600_000, 1200, undefined), { intervalMs: 2000, interval: '2s' });
  // a panel's min interval wins over a finer computed one
  assert.deepEqual(calculateInterval(0, 3_600_000, 1200, '5s'), { intervalMs: 5000, interval: '5s' });
  assert.equal(parseInterval('1m'), 60000);
  assert.throws(() => parseInterval('soon'), /not a Grafana interval/);
});

test('variables: single values raw, regex use escaped, multi as alternation, All as allValue', () => {
  const single = { name: 'testid', multi: false, includeAll: false };
  const multi = { name: 'release', multi: true, includeAll: true, allValue: '.*' };
  assert.equal(formatVariable(single, 'cico-1.5', `"testid" = '$testid'`), 'cico-1.5');
  assert.equal(formatVariable(single, 'cico-1.5', `"testid" =~ /^$testid$/`), 'cico-1\\.5');
  assert.equal(formatVariable(multi, ['lotus', 'r1.2'], ''), '(lotus|r1\\.2)');
  assert.equal(formatVariable(multi, ['lotus'], ''), 'lotus');
  assert.equal(formatVariable(multi, '$__all', ''), '.*');
  assert.equal(escapeRegex('a/b(c)'), 'a\\/b\\(c\\)');
});

test('a query gets the time filter, interval and variables', () => {
  const variables = [
    { name: 'testid', type: 'query' },
    { name: 'release', type: 'query', multi: true, includeAll: true, allValue: '.*' },
  ];
  const q = interpolateQuery(
    `SELECT count("value") * 1000 / $__interval_ms FROM "x" WHERE "testid" = '$testid' AND "release" =~ /^\${release}$/ AND $timeFilter GROUP BY time($__interval)`,
    { fromMs: 1000, toMs: 61000, intervalMs: 5000, variables, values: { testid: 'cico-a', release: '$__all' } },
  );
  assert.equal(
    q,
    `SELECT count("value") * 1000 / 5000 FROM "x" WHERE "testid" = 'cico-a' AND "release" =~ /^.*$/ AND time >= 1000ms and time <= 61000ms GROUP BY time(5s)`,
  );
  assert.throws(() => interpolateQuery('SELECT $nope', { intervalMs: 1000, variables, values: {} }), /does not define/);
  assert.throws(() => interpolateQuery('SELECT $testid', { intervalMs: 1000, variables, values: {} }), /no value given/);
});

test('panelQueries: one entry per target, interval from the panel width, datasource resolved', () => {
  const dash = {
    templating: { list: [{ name: 'testid', type: 'query' }] },
    panels: [
      { type: 'row', id: 1, title: 'r', gridPos: { x: 0, y: 0, w: 24, h: 1 } },
      {
        type: 'timeseries',
        id: 2,
        title: 'p',
        gridPos: { x: 0, y: 1, w: 12, h: 8 },
        datasource: { uid: '${datasource}' },
        targets: [
          { refId: 'A', query: `SELECT 1 FROM "x" WHERE "testid" = '$testid' AND $timeFilter GROUP BY time($__interval)` },
          { refId: 'B', datasource: { uid: 'fixed' }, query: 'SELECT 2 FROM "y" WHERE $timeFilter' },
        ],
      },
    ],
  };
  const qs = panelQueries(dash, { fromMs: 0, toMs: 3_600_000, values: { testid: 't1' }, datasourceUid: 'ds1' });
  assert.equal(qs.length, 2);
  // 12 of 24 columns of 1920 px = 960 points over 1 h → 3.75 s → 5 s
  assert.equal(qs[0].query, `SELECT 1 FROM "x" WHERE "testid" = 't1' AND time >= 0ms and time <= 3600000ms GROUP BY time(5s)`);
  assert.equal(qs[0].datasourceUid, 'ds1');
  assert.equal(qs[1].datasourceUid, 'fixed');
});
