// The database and longevity sections' pure logic: pg_stat_statements diffs, without-index line
// counts, the run's periods and the leak rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffStatements, topStatements, normaliseQuery, diffCounts, lineTime, countWithoutIndex, withoutIndexField, fieldCounts, diffFieldCounts } from '../../tools/report/db-statements.mjs';
import { periods, memoryTrend, moduleTrends, judgedWindow, LEAK_RULE, describeLeakRule, longevityJudgement, LONGEVITY_RULE } from '../../tools/report/longevity.mjs';
import { linearFit } from '../../tools/report/stats.mjs';
import { databaseSection } from '../../tools/report/sections-db.mjs';
import { longevitySection } from '../../tools/report/sections-longevity.mjs';
import { memoryTrendBlocks } from '../../tools/report/sections-modules.mjs';

const st = (queryid, calls, total_ms, rows, query = `q${queryid}`) => ({ queryid, query, calls, total_ms, rows });

test('diffStatements: the run\'s own calls, new statements from zero, a reset statement from its end figures', () => {
  const start = [st('1', 10, 100, 10), st('2', 5, 50, 5), st('3', 100, 1000, 100), st('4', 7, 7, 7)];
  const end = [st('1', 30, 400, 30), st('2', 5, 50, 5), st('3', 4, 80, 4), st('5', 2, 1000, 2), st('6', 1, 5000, 1, 'SELECT json_agg(s) FROM (SELECT * FROM pg_stat_statements) s')];
  const d = diffStatements(start, end);
  assert.deepEqual(d.map((s) => s.queryid), ['5', '1', '3']); // by total time; '2' not called, '4' gone
  const one = d.find((s) => s.queryid === '1');
  assert.deepEqual([one.calls, one.totalMs, one.meanMs, one.rows], [20, 300, 15, 20]);
  assert.deepEqual([d[2].calls, d[2].totalMs], [4, 80]); // counters went down: reset in between
  const top = topStatements(d, 2);
  assert.deepEqual(top.byTotal.map((s) => s.queryid), ['5', '1']);
  assert.deepEqual(top.byMean.map((s) => s.queryid), ['5', '3']); // 500 ms, 20 ms (1: 15 ms)
});

test('normaliseQuery collapses whitespace and truncates', () => {
  assert.equal(normaliseQuery('SELECT  *\n  FROM\tt'), 'SELECT * FROM t');
  const long = normaliseQuery('x'.repeat(300), 50);
  assert.equal(long.length, 50);
  assert.ok(long.endsWith('…'));
});

test('diffCounts: lines logged during the run; a truncated log counts its end', () => {
  assert.deepEqual(diffCounts({ a: 5, b: 10 }, { a: 9, b: 3, c: 2 }), { a: 4, b: 3, c: 2 });
});

test('lineTime reads RMB, slog and offset timestamps; countWithoutIndex keeps the run window', () => {
  assert.equal(lineTime('2024-03-01T10:00:00,123 WARN PostgresClient x'), Date.parse('2024-03-01T10:00:00.123Z'));
  assert.equal(lineTime('time=2024-03-01T10:00:00.5Z level=WARN'), Date.parse('2024-03-01T10:00:00.500Z'));
  assert.equal(lineTime('2024-03-01 12:00:00 +0200 x'), Date.parse('2024-03-01T10:00:00Z'));
  assert.equal(lineTime('no time here'), null);
  const from = Date.parse('2024-03-01T10:00:00Z');
  const to = Date.parse('2024-03-01T11:00:00Z');
  const log = [
    '2024-03-01T09:59:59Z WARN Doing SQL query without index for userId', // before
    '2024-03-01T10:30:00Z WARN Doing SQL query without index for userId',
    '2024-03-01T10:31:00Z INFO something else',
    'WARN Doing SQL query without index for itemId', // undated
    '2024-03-01T11:00:00Z WARN Doing SQL query without index for itemId',
    '2024-03-01T11:00:01Z WARN Doing SQL query without index for itemId', // after
    // RMB's other three words for the same warning (CQL2PgJSON, by the search it built):
    "2024-03-01T10:40:00,001 WARN  CQL2PgJSON Doing FT search without index for t.jsonb->>'pickupServicePointId', CQL >>> SQL: …",
    '2024-03-01T10:41:00,001 WARN  CQL2PgJSON Doing LIKE search without index for userId',
    '2024-03-01T10:42:00,001 WARN  CQL2PgJSON Doing wildcard LIKE search without index for barcode',
    '2024-03-01T10:43:00,001 INFO  CQL2PgJSON Doing a search with an index', // not a warning
  ].join('\n');
  // each in-run line by the field it names (RMB's SQL-side spelling read as its JSON path)
  assert.deepEqual(countWithoutIndex(log, from, to), { inRun: 5, undated: 1, fields: { userId: 2, itemId: 1, pickupServicePointId: 1, barcode: 1 } });
  assert.equal(withoutIndexField("Doing SQL query without index for jsonb->'status'->>'name', CQL"), 'status.name');
  assert.deepEqual(fieldCounts(log), { userId: 3, itemId: 3, pickupServicePointId: 1, barcode: 1 });
  assert.deepEqual(diffFieldCounts({ 'mod-a': { userId: 2 } }, { 'mod-a': { userId: 5, itemId: 1 }, 'mod-b': {} }), { 'mod-a': { userId: 3, itemId: 1 }, 'mod-b': {} });
});

test('periods: hours for 3 h or more, thirds below, contiguous and covering the run', () => {
  const h = 3600000;
  const long = periods(0, 5 * h);
  assert.equal(long.kind, 'hours');
  assert.deepEqual(long.periods.map((p) => [p.label, p.fromMs, p.toMs]), [['first hour', 0, h], ['middle', h, 4 * h], ['last hour', 4 * h, 5 * h]]);
  const short = periods(1000, 1000 + 90 * 60000);
  assert.equal(short.kind, 'thirds');
  assert.deepEqual(short.periods.map((p) => p.toMs - p.fromMs), [30 * 60000, 30 * 60000, 30 * 60000]);
  assert.equal(short.periods[0].fromMs, 1000);
  assert.equal(short.periods[2].toMs, 1000 + 90 * 60000);
});

test('linearFit: slope per hour and R²', () => {
  const pts = [0, 1, 2, 3].map((i) => [i * 1800000, 100 + 10 * i]); // +20 per hour, exact
  const f = linearFit(pts);
  assert.ok(Math.abs(f.slope - 20) < 1e-9);
  assert.ok(Math.abs(f.r2 - 1) < 1e-9);
  assert.equal(f.mean, 115);
  assert.equal(linearFit([[0, 1]]), null);
});

test('memoryTrend: steady growth is a leak; saw-teeth, flat or short series are not', () => {
  const min = 60000;
  const MiB = 1048576;
  // 100 MiB growing 1 MiB a minute: 60 %/h, a straight line
  const leak = Array.from({ length: 10 }, (_, i) => [i * min, (100 + i) * MiB]);
  const r = memoryTrend(leak);
  assert.equal(r.verdict, 'leak');
  assert.ok(r.growthPct > 50 && r.r2 > 0.99);
  // GC saw-teeth: big swings, no trend
  const saw = Array.from({ length: 20 }, (_, i) => [i * min, (i % 2 ? 140 : 100) * MiB]);
  assert.equal(memoryTrend(saw).verdict, 'no leak');
  // slow steady growth below the bound: 1 %/h
  const slow = Array.from({ length: 10 }, (_, i) => [i * min, 100 * MiB * (1 + (0.01 * i) / 60)]);
  assert.equal(memoryTrend(slow).verdict, 'no leak');
  // warm-up: a steep climb that levels off (mod-notes after a start, recorded on a 3-minute run)
  const warm = [15.6, 15.8, 18.3, 20.7, 22.9, 25.1, 27.6, 29.3, 29.3, 29.3, 29.3, 29.3, 29.8].map((v, i) => [i * 15000, v * MiB]);
  const w = memoryTrend(warm);
  assert.ok(w.growthPct > LEAK_RULE.growthPctPerHour && w.r2 >= LEAK_RULE.minR2, 'steep and well fitted over the run');
  assert.equal(w.verdict, 'no leak');
  assert.ok(w.lateGrowthPerHour < w.growthPerHour * LEAK_RULE.minLateShare);
  assert.equal(memoryTrend([[0, 1], [min, 2]]).verdict, 'too short');
  assert.match(describeLeakRule(), new RegExp(`${LEAK_RULE.growthPctPerHour} %`));
});

test('databaseSection and longevitySection build their tables, and say what is missing', () => {
  const db = { statements: diffStatements([], [st('1', 2, 10, 2, 'SELECT\n 1')]), withoutIndex: { 'mod-a': 0, 'mod-b': 7 }, withoutIndexFields: { 'mod-b': { userId: 6, itemId: 1 } }, withoutIndexSource: 'x' };
  const s = databaseSection(db, [{ vus: 1, phase: null, avg: 4.5, max: 6 }, { vus: 5, phase: null, avg: 9, max: 12 }]);
  const t = (id) => s.blocks.find((b) => b.id === id);
  assert.deepEqual(t('db-top-total').rows, [['1', 'SELECT 1', '2', '10.0', '5.00', '2']]);
  assert.deepEqual(t('db-without-index').rows, [['mod-b', '7', 'userId (6), itemId (1)'], ['mod-a', '0', '-']]);
  assert.match(t('db-without-index').caption, /total 7/);
  // connections, and their change from the first step
  assert.deepEqual(t('db-connections').rows, [['1', '4.5', '6', '-'], ['5', '9.0', '12', '+100.0%']]);
  const none = databaseSection({ statements: null, withoutIndex: null }, []);
  assert.equal(none.blocks.filter((b) => b.type === 'text').length, 2);

  // transactions in seconds (one decimals count for the table), search groups in milliseconds
  const lon = { kind: 'thirds', periods: ['first third', 'middle third', 'last third'].map((label, i) => ({ label, rows: [{ name: 'check-in', avg: 100 * (i + 1), p95: 200 * (i + 1), n: 5 }] })) };
  const l = longevitySection(lon);
  assert.deepEqual(l.blocks[0].rows, [['check-in', '0.100', '0.200', '0.200', '0.400', '0.300', '0.600', '+200.0%']]);
  assert.match(l.blocks[0].caption, /shorter than 3 hours.*\(seconds\)/);
  const fast = { kind: 'thirds', periods: lon.periods.map((p) => ({ ...p, rows: p.rows.map((r) => ({ ...r, avg: r.avg / 50, p95: r.p95 / 50 })) })) };
  assert.deepEqual(longevitySection(fast).blocks[0].rows[0].slice(1, 3), ['0.0020', '0.0040'], 'no cell rounds to 0.001 s: more decimals for the whole table');
  assert.deepEqual(longevitySection(lon, 'group', 'ms').blocks[0].rows[0].slice(1, 3), ['100.0', '200.0']);

  // the memory trend and leak verdict (the Modules section's)
  const mods = [{ module: 'mod-x', mem: Array.from({ length: 10 }, (_, i) => [i * 60000, (100 + i) * 1048576]) }];
  const [mem, text] = memoryTrendBlocks(mods, []);
  assert.equal(mem.rows[0][7], 'leak');
  assert.equal(mem.rows[0][5], '+60.0'); // second half: the same 1 MiB a minute
  assert.equal(mem.rows[0][6], '+8.6%'); // 9 MiB over the window on an average of 104.5
  assert.match(text.text, /mod-x leaks/);

  // Only processes the rule does not judge (a real FOLIO whose modules this Telegraf cannot see):
  // no verdict, and not for a short window; with a short window, that reason.
  const dbOnly = memoryTrendBlocks([{ module: 'postgres', mem: mods[0].mem }, { module: 'influxdb', mem: mods[0].mem }], []);
  assert.match(dbOnly[1].text, /none given; no FOLIO module/);
  const short = memoryTrendBlocks([{ module: 'mod-x', mem: mods[0].mem.slice(0, 2) }, { module: 'postgres', mem: mods[0].mem }], []);
  assert.equal(short[0].rows.find((r) => r[0] === 'mod-x')[7], 'too short');
  assert.match(short[1].text, /shorter than 2 minutes/);
});

test('longevity is judged only for one constant load long enough: a stepped or short run says why', () => {
  const min = 60_000;
  assert.deepEqual(longevityJudgement([{ vus: 20, fromMs: 0, toMs: LONGEVITY_RULE.minMinutes * min }]), { judged: true });
  // the stepped demo run of a few minutes that once showed "p95 +47.5 %", its 1-user third against its 20-user third
  const stepped = longevityJudgement([1, 5, 8, 20].map((vus, i) => ({ vus, fromMs: i * 75_000, toMs: (i + 1) * 75_000 })));
  assert.equal(stepped.judged, false);
  assert.match(stepped.reason, /changes its load \(4 steps: 1, 5, 8, 20\)/);
  const phases = longevityJudgement([{ vus: 1, phase: 'baseline', fromMs: 0, toMs: 3600_000 }, { vus: 1, phase: 'reindex', fromMs: 3600_000, toMs: 7200_000 }]);
  assert.match(phases.reason, /1 baseline, 1 reindex/);
  const short = longevityJudgement([{ vus: 2, fromMs: 0, toMs: 30_000 }]);
  assert.match(short.reason, /lasted 0\.5 minutes; longevity needs 30 minutes or more/);
  assert.match(longevityJudgement([]).reason, /no steps/);
});

test('the leak verdict of a stepped run is judged over its longest step: growth from stepping the load up is no leak', () => {
  const MiB = 1048576;
  // Four 5-minute steps; RSS jumps by 20 MiB at each step and is flat within a step (a larger
  // load, no leak), sampled every 10 s.
  const steps = [1, 5, 8, 20].map((vus, i) => ({ vus, fromMs: i * 300_000, toMs: (i + 1) * 300_000 - 1 }));
  const stepped = Array.from({ length: 120 }, (_, i) => [i * 10_000, (100 + 20 * Math.floor(i / 30)) * MiB]);
  // The same steps, but within each step RSS climbs 3 MiB a minute and never levels off: a leak
  // (12 MiB over the judged 4 minutes, 7 % of the average).
  const leaking = stepped.map(([t, v]) => [t, v + 3 * (t / 60_000) * MiB]);
  const mods = [{ module: 'mod-stepped', mem: stepped }, { module: 'mod-leaking', mem: leaking }];
  const whole = memoryTrendBlocks(mods, []);
  const verdict = (blocks, m) => blocks[0].rows.find((r) => r[0] === m)[7];
  assert.equal(verdict(whole, 'mod-stepped'), 'leak', 'over the whole stepped run, the step jumps look like a leak');
  const judged = memoryTrendBlocks(mods, steps);
  assert.equal(verdict(judged, 'mod-stepped'), 'no leak');
  assert.equal(verdict(judged, 'mod-leaking'), 'leak');
  assert.match(judged[0].caption, /longest constant-load step/);
});

test('a short window: a creep above 5 %/h but within 5 % of the average over the window is no leak', () => {
  const MiB = 1048576;
  const min = 60_000;
  // 10 minutes sampled every 5 s: 31 MiB creeping 3 MiB/h (9.7 %/h, 1.6 % over the window), as the
  // Go modules of a 13-minute fast run did after warming up; and the same plus a 256-byte-per-request
  // leak at 100 requests/s (about 88 MiB/h).
  const creep = Array.from({ length: 121 }, (_, i) => [i * 5000, 31 * MiB + ((3 * MiB) / 60) * (i / 12) + (i % 3) * 20000]);
  const leak = creep.map(([t, v]) => [t, v + ((88 * MiB) / 60) * (t / min)]);
  const c = memoryTrend(creep);
  assert.ok(c.growthPct > LEAK_RULE.growthPctPerHour && c.r2 >= LEAK_RULE.minR2, `${c.growthPct} %/h, R² ${c.r2}`);
  assert.ok(c.windowGrowthPct < LEAK_RULE.windowGrowthPct, `${c.windowGrowthPct} % over the window`);
  assert.equal(c.verdict, 'no leak');
  const l = memoryTrend(leak);
  assert.ok(l.windowGrowthPct > 20, `${l.windowGrowthPct}`);
  assert.equal(l.verdict, 'leak');
});

test('moduleTrends: one step is judged without its first fifth; postgres and influxdb are not judged', () => {
  const MiB = 1048576;
  // one 5-minute step: a warm-up climb of 30 MiB in the first 40 s, flat afterwards
  const step = { vus: 2, phase: null, fromMs: 0, toMs: 300_000 };
  const warm = Array.from({ length: 61 }, (_, i) => [i * 5000, (i * 5000 < 40_000 ? 10 + (30 * i * 5000) / 40_000 : 40) * MiB]);
  const steady = warm.map(([t]) => [t, (100 + t / 10_000) * MiB]); // +0.1 MiB every 10 s: 36 MiB/h
  const mods = [{ module: 'mod-a', mem: warm }, { module: 'postgres', mem: steady }, { module: 'influxdb', mem: steady }, { module: 'mod-b', mem: steady }];
  const v = Object.fromEntries(moduleTrends(mods, [step]).map((t) => [t.module, t.verdict]));
  assert.deepEqual(v, { 'mod-a': 'no leak', postgres: 'not judged', influxdb: 'not judged', 'mod-b': 'leak' });
  assert.deepEqual(judgedWindow([step]), { fromMs: 60_000, toMs: 300_000, label: '2 users' });
  assert.equal(judgedWindow([]), null);
  // the warm-up is left out: mod-a is flat over the judged window
  assert.equal(moduleTrends(mods, [step]).find((t) => t.module === 'mod-a').growthPerHour, 0);
  // a window too short for any verdict stays "too short", judged or not
  const short = { vus: 2, phase: null, fromMs: 0, toMs: 120_000 };
  assert.ok(moduleTrends(mods, [short]).every((t) => t.verdict === 'too short'));
  assert.match(describeLeakRule(), /postgres is not judged/);
});
