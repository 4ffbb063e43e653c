// The dashboards as people browse them (docs/dashboards.md): SLO lines from thresholds.json, the
// run's window as annotations and a table whose links open a run on its time range, numbers that
// need no time range, links between a run and its comparison, and the per-user-count table.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sloLimit } from '../../lib/thresholds.js';
import { SEARCH_KINDS } from '../../lib/metrics.js';
import { OUT_DIR } from '../../dashboards/src/index.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const load = (f) => JSON.parse(readFileSync(join(root, 'dashboards', OUT_DIR, f), 'utf8'));
const th = JSON.parse(readFileSync(join(root, 'thresholds.json'), 'utf8'));
const cico = load('folio-check-in-check-out.json');
const search = load('folio-mod-search.json');
const cmp = load('folio-release-comparison.json');
const panel = (d, title) => {
  const p = d.panels.find((x) => x.title === title);
  assert.ok(p, `${d.uid}: panel "${title}"`);
  return p;
};
const sloLine = (p) => {
  const { thresholds, custom } = p.fieldConfig.defaults;
  assert.equal(custom.thresholdsStyle?.mode, 'line', `${p.title}: thresholds drawn as a line`);
  return thresholds.steps.filter((s) => s.value !== null).map((s) => s.value);
};

test('SLO lines: each response-time panel draws its p95 budget from thresholds.json', () => {
  for (const [t, title] of [['check-out', 'Check-out p50 / p75 / p95'], ['check-in', 'Check-in p50 / p75 / p95']]) {
    const want = sloLimit(th, 'cico', 'transactions', t);
    assert.ok(want > 0);
    assert.deepEqual(sloLine(panel(cico, title)), [want], title);
    assert.equal(panel(cico, title).fieldConfig.defaults.unit, 'ms');
  }
  const kinds = SEARCH_KINDS.filter((k) => sloLimit(th, 'search', 'kinds', k));
  assert.ok(kinds.length >= 3, 'thresholds.json budgets every kind of search');
  for (const k of kinds) {
    const p = panel(search, `p95 by group, ${k} queries`);
    assert.deepEqual(sloLine(p), [sloLimit(th, 'search', 'kinds', k)], k);
    assert.match(p.targets[0].query, new RegExp(`"kind" = '${k}'.*GROUP BY time\\(\\$__interval\\), "group"`));
  }
  // The run's p95 stat turns red at the same budget.
  const stat = panel(cico, 'Check-out p95').fieldConfig.defaults.thresholds.steps.at(-1);
  assert.deepEqual(stat, { value: sloLimit(th, 'cico', 'transactions', 'check-out'), color: 'red' });
});

test('the run window: start and end annotations from the run\'s first and last sample', () => {
  for (const d of [cico, search]) {
    const list = d.annotations.list;
    assert.equal(list[0].builtIn, 1, 'Grafana\'s own annotation first');
    const byName = Object.fromEntries(list.filter((a) => !a.builtIn).map((a) => [a.name, a]));
    assert.deepEqual(Object.keys(byName), ['Run start', 'Run end']);
    assert.match(byName['Run start'].target.query, /^SELECT first\("value"\) .* FROM "vus" WHERE "testid" = '\$testid' GROUP BY "testid"$/);
    assert.match(byName['Run end'].target.query, /^SELECT last\("value"\) .* FROM "vus" WHERE "testid" = '\$testid' GROUP BY "testid"$/);
    for (const a of Object.values(byName)) {
      assert.equal(a.enable, true);
      assert.doesNotMatch(a.target.query, /\$timeFilter/, 'the run\'s own edges, not the range\'s');
    }
  }
});

test('numbers need no time range: whole-run stats and tables drop $timeFilter, series keep it', () => {
  for (const d of [cico, search, cmp]) {
    for (const p of d.panels.filter((x) => x.type === 'stat' || x.type === 'table')) {
      for (const t of p.targets) {
        if (!/"testid"/.test(t.query)) continue; // Telegraf's tables follow the time range
        assert.doesNotMatch(t.query, /\$timeFilter/, `${d.uid} "${p.title}" ${t.refId}`);
      }
    }
    for (const p of d.panels.filter((x) => x.type === 'timeseries')) {
      for (const t of p.targets) assert.match(t.query, /\$timeFilter/, `${d.uid} "${p.title}" follows the time range`);
    }
  }
});

test('"Run window" opens the run on its time range: from = start, to = end of the joined row', () => {
  for (const [d, title, where] of [[cico, 'Run window', `"testid" = '$testid'`], [search, 'Run window', `"testid" = '$testid'`],
    [cmp, 'Runs A and B', `("testid" = '$testid_a' OR "testid" = '$testid_b')`]]) {
    const p = panel(d, title);
    assert.deepEqual(p.targets.map((t) => t.query.match(/^SELECT (\w+)\(/)[1]), ['first', 'last']);
    for (const t of p.targets) assert.ok(t.query.includes(`WHERE ${where} GROUP BY "testid"`), t.query);
    const [join, organize] = p.transformations;
    assert.deepEqual(join, { id: 'joinByField', options: { byField: 'testid', mode: 'inner' } });
    assert.deepEqual(organize.options.renameByName, { 'Time 1': 'start', 'Time 2': 'end' });
    const links = p.fieldConfig.overrides.find((o) => o.matcher.options === 'testid').properties.find((x) => x.id === 'links').value;
    const open = links.find((l) => l.title.startsWith('Open this run'));
    const target = d === cmp ? 'folio-cico' : d.uid;
    assert.equal(open.url, `/d/${target}/?var-testid=\${__data.fields.testid}&var-release=$__all&from=\${__value.time}&to=\${__data.fields.end.numeric}`);
  }
});

test('links: a run opens its comparison and the comparison opens each run, with existing variables', () => {
  const vars = (d) => d.templating.list.map((v) => v.name);
  const linked = (url) => {
    const [, uid, query] = url.match(/^\/d\/([^/]+)\/\?(.*)$/);
    const d = [cico, search, cmp].find((x) => x.uid === uid);
    assert.ok(d, `link to an existing dashboard: ${url}`);
    for (const [k] of new URLSearchParams(query)) if (k.startsWith('var-')) assert.ok(vars(d).includes(k.slice(4)), `${uid} has ${k}`);
    return { uid, params: new URLSearchParams(query) };
  };
  const toCmp = linked(cico.links.find((l) => l.title.startsWith('Compare')).url);
  assert.equal(toCmp.uid, cmp.uid);
  assert.equal(toCmp.params.get('var-testid_b'), '$testid');
  const window = panel(cico, 'Run window').fieldConfig.overrides.find((o) => o.matcher.options === 'testid').properties.find((x) => x.id === 'links');
  assert.equal(linked(window.value.find((l) => l.title.startsWith('Compare')).url).params.get('var-testid_b'), '${__data.fields.testid}');
  assert.deepEqual(cmp.links.map((l) => linked(l.url)).map((x) => [x.uid, x.params.get('var-testid')]), [['folio-cico', '$testid_a'], ['folio-cico', '$testid_b']]);
});

test('the single run by user count: the report\'s response-time table', () => {
  const p = panel(cico, 'Check-in / check-out by user count');
  const q = p.targets[0].query;
  for (const s of ['avg', 'p50', 'p75', 'p95', 'n']) assert.match(q, new RegExp(`AS "${s}"`));
  assert.match(q, /FROM "transaction_duration" WHERE "testid" = '\$testid' GROUP BY "vus", "transaction"$/);
  assert.equal(p.fieldConfig.defaults.unit, 'ms');
  const red = p.fieldConfig.overrides.find((o) => o.matcher.options === 'p95').properties.find((x) => x.id === 'thresholds');
  const tighter = Math.min(sloLimit(th, 'cico', 'transactions', 'check-out'), sloLimit(th, 'cico', 'transactions', 'check-in'));
  assert.deepEqual(red.value.steps.at(-1), { color: 'red', value: tighter });
});
