// The report's database and longevity sections on a real run: a short CICO run under minifolio's
// `missing-index` profile (folio-perf run snapshots pg_stat_statements and the module logs' line
// counts around k6), then the report. Its without-index table shows the profile's mechanism
// (mod-circulation-storage logs RMB's line for the dropped loan.userId index), its statement
// counts agree with the run's transactions, its connections and per-period response times with
// InfluxDB, and --module-logs (the real-FOLIO path, lines dated in the run's window) agrees with
// the snapshots; a 30-second run gets no Longevity section, and the Summary says why. Then one run under each of two more profiles, each showing its mechanism: `leak`
// (a positive RSS trend and the leak verdict for mod-circulation alone) and `juniper-patron-blocks`
// (the automated-patron-blocks API takes most of check-out's time and is many times the other
// GETs, both ratios within the run: the machine's speed moves both sides alike).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repo, env, influxQuery, run, mdTable, sql, folioPerf as cli } from './helpers.mjs';
import { checkSummary } from '../summary-check.mjs';
import { gather } from '../../tools/report/gather.mjs';
import { influxClient } from '../../tools/report/influx.mjs';
import { tools } from '../../tools/workflows.mjs';
import { poolQueries } from '../../lib/cico/data.js';

const testid = `e2e-report-mech-${Date.now()}`;
const dir = join(repo, 'results', testid);
const logs = join(env('FP_STACK_DIR'), 'minifolio', 'logs');
let summary;
let md;


before(() => {
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { PROFILE: 'smoke', VUS: '2', DURATION: '30s', MINIFOLIO_PROFILE: 'missing-index', TESTID: testid },
    timeoutMs: 300_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const rep = cli(['report', testid]);
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  md = readFileSync(join(dir, 'report.md'), 'utf8');
});

test('without-index lines: mod-circulation-storage logged them during the run (the profile dropped its loan.userId index)', () => {
  const { rows } = mdTable(md, 'RMB "Doing … without index" lines');
  const n = Object.fromEntries(rows.map(([m, v]) => [m, Number(v)]));
  assert.ok(n['mod-circulation-storage'] > 0, JSON.stringify(n));
  // with the field the profile left without its index, and as many lines for it as the snapshots diff
  const fields = rows.find((r) => r[0] === 'mod-circulation-storage')[2];
  assert.match(fields, /\buserId \(\d+\)/, fields);
  const [fa, fb] = ['start', 'end'].map((w) => JSON.parse(readFileSync(join(dir, `index-fields-${w}.json`), 'utf8')));
  assert.equal(Number(/\buserId \((\d+)\)/.exec(fields)[1]), fb['mod-circulation-storage'].userId - (fa['mod-circulation-storage']?.userId ?? 0));
  // and the Summary says so, with the count of the row it cites
  assert.ok(checkSummary(md).some((i) => i.text.startsWith(`\`mod-circulation-storage\` logged ${n['mod-circulation-storage']} "without index" warnings, on `)));
  for (const [m, v] of Object.entries(n)) if (m !== 'mod-circulation-storage') assert.equal(v, 0, `${m} logs no such line`);
  // the snapshots' own numbers
  const [a, b] = ['start', 'end'].map((w) => JSON.parse(readFileSync(join(dir, `index-lines-${w}.json`), 'utf8')));
  assert.equal(n['mod-circulation-storage'], b['mod-circulation-storage'] - (a['mod-circulation-storage'] ?? 0));
  // the userId lines, dated in the run's own window, are among them
  const stamps = readFileSync(join(logs, 'mod-circulation-storage.log'), 'utf8').split('\n').filter((l) => l.includes('without index for userId'));
  assert.ok(stamps.length > 0, 'the profile\'s userId lines are in the log');
});

test('--module-logs (lines dated in the run\'s window) agrees with the snapshots: some, and no more', () => {
  const rep = cli(['report', testid, '--module-logs', logs]);
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  const text = readFileSync(join(dir, 'report.md'), 'utf8');
  const { rows } = mdTable(text, 'RMB "Doing … without index" lines');
  const byLogs = Number(rows.find((r) => r[0] === 'mod-circulation-storage')[1]);
  const bySnap = Number(mdTable(md, 'RMB "Doing … without index" lines').rows.find((r) => r[0] === 'mod-circulation-storage')[1]);
  // The window (first to last sample) lies inside the snapshots' span (k6's setup and teardown around it).
  assert.ok(byLogs > 0 && byLogs <= bySnap, `${byLogs} in the window, ${bySnap} between the snapshots`);
  assert.match(text, /log lines dated in the run's window/);
  const bad = cli(['report', testid, '--module-logs', join(dir, 'no-such-dir')]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^folio-perf: --module-logs .* is not a directory; fix: /);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
});

test('top statements: the loan INSERT ran once per check-out; the snapshots\' own query is not listed', () => {
  const { rows, caption } = mdTable(md, 'Top 10 statements by total time');
  assert.match(caption, /\d+ statements called/);
  // columns: #, Statement, Calls, Total ms, Mean ms, Rows
  const loanInsert = mdTable(md, 'Top 10 statements by total time').rows.concat(mdTable(md, 'Top 10 statements by mean time').rows).map((r) => r.slice(1)).find((r) => /^INSERT INTO fs09000000_mod_circulation_storage\.loan /.test(r[0]));
  const checkouts = summary.tables.responseTimes.reduce((a, r) => a + (r['check-out']?.count ?? 0), 0);
  if (loanInsert) {
    // a check-out still in flight when its step ended inserted its loan without being counted
    assert.ok(Number(loanInsert[1]) >= checkouts && Number(loanInsert[1]) <= checkouts + 2, `${loanInsert[1]} loan inserts, ${checkouts} check-outs`);
  } else {
    const end = JSON.parse(readFileSync(join(dir, 'pg-statements-end.json'), 'utf8'));
    assert.ok(end.some((s) => /^INSERT INTO fs09000000_mod_circulation_storage\.loan /.test(s.query)), 'the loan INSERT was recorded');
  }
  assert.deepEqual(rows.map((r) => r[0]), rows.map((_, i) => String(i + 1)), 'ranked');
  for (const r of rows) assert.ok(!/pg_stat_statements/.test(r[1]));
  // Mean ms = Total ms / Calls on every row
  for (const r of rows) assert.ok(Math.abs(Number(r[3]) / Number(r[2]) - Number(r[4])) < 0.01 + Number(r[4]) * 0.01, r.join(' | '));
});

// The step's window, recomputed from raw rows of its user count (setup's and teardown's requests,
// outside any step, carry none).
async function windowOf() {
  const [a] = await influxQuery(`SELECT "value" FROM "http_reqs" WHERE "testid" = '${testid}' AND "vus" = '2' ORDER BY time ASC LIMIT 1`);
  const [b] = await influxQuery(`SELECT "value" FROM "http_reqs" WHERE "testid" = '${testid}' AND "vus" = '2' ORDER BY time DESC LIMIT 1`);
  return [a.values[0][0], b.values[0][0]];
}

test('connections: the mean of numbackends over the step, from raw rows', async () => {
  const [from, to] = await windowOf();
  const [s] = await influxQuery(`SELECT "numbackends" FROM "postgresql" WHERE time >= ${from}ms AND time <= ${to}ms AND "db" = 'folio'`);
  assert.ok(s && s.values.length > 0, 'Telegraf wrote postgresql samples during the run');
  const vals = s.values.map((v) => v[1]);
  const { rows } = mdTable(md, 'Database connections');
  assert.deepEqual(rows.map((r) => r[0]), ['2']);
  assert.equal(rows[0][1], (vals.reduce((x, y) => x + y, 0) / vals.length).toFixed(1));
  assert.equal(rows[0][2], String(Math.max(...vals)));
});

test('longevity: a 30-second run is not judged (no Longevity section, the Summary says why); its periods\' query still agrees with InfluxDB\'s raw rows; its memory trend has a verdict per module', async () => {
  // The periods a long constant-load run's section shows, from the same gather() the report runs
  // (thirds under 3 hours): each third's check-out average is InfluxDB's over that third.
  const [from, to] = await windowOf();
  const data = await gather(influxClient(env('FP_INFLUX_URL')), summary, await tools('cico'), { dir });
  assert.equal(data.longevity.kind, 'thirds');
  const third = (to - from) / 3;
  for (const i of [0, 2]) {
    const p = data.longevity.periods[i];
    const lo = from + i * third;
    const hi = i === 2 ? to : from + (i + 1) * third;
    assert.ok(Math.abs(p.fromMs - lo) < 2 && Math.abs(p.toMs - hi) < 2, `period ${i}: ${p.fromMs}-${p.toMs}`);
    const series = await influxQuery(`SELECT "value" FROM "transaction_duration" WHERE "testid" = '${testid}' AND "transaction" = 'check-out' AND time >= ${Math.floor(p.fromMs)}ms AND time <= ${Math.ceil(p.toMs)}ms`);
    const v = series[0].values.map((x) => x[1]);
    assert.ok(Math.abs(p.rows.find((r) => r.name === 'check-out').avg - v.reduce((x, y) => x + y, 0) / v.length) < 1e-6, `check-out, period ${i}`);
  }
  assert.ok(!/^## Longevity$/m.test(md), 'no Longevity section for a 30-second run');
  const why = checkSummary(md).find((i) => i.cannot && /Longevity/.test(i.text));
  assert.match(why.text, /the run's constant load lasted 0\.\d minutes; longevity needs 30 minutes or more/);
  // the memory table (Modules) states its rule and gives each of the run's modules a verdict
  const mem = mdTable(md, 'Module memory (RSS) trend');
  assert.match(mem.caption, /leaks when its RSS grows by more than \d+ % of its average per hour and by more than \d+ % of it over the judged window/);
  assert.ok(mem.rows.some((r) => r[0] === 'mod-circulation'));
  for (const r of mem.rows) assert.ok(['leak', 'no leak', 'too short', 'not judged'].includes(r[7]), r.join(' | '));
});

// A short CICO run under a minifolio profile, then its report; returns the run's testid, summary
// and report text. The results directory is removed by the caller's after(). okExits: a regression
// profile may fail the thresholds (k6's 99), which is the gate doing its job; the run is complete.
function profileRun(profile, vars, okExits = [0]) {
  const id = `${testid}-${profile}`;
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], { env: { PROFILE: 'smoke', VUS: '2', MINIFOLIO_PROFILE: profile, TESTID: id, ...vars }, timeoutMs: 400_000 });
  assert.ok(okExits.includes(r.status), `exit ${r.status}\n${r.stdout}${r.stderr}`);
  const rep = cli(['report', id]);
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  const d = join(repo, 'results', id);
  return { id, summary: JSON.parse(readFileSync(join(d, 'summary.json'), 'utf8')), md: readFileSync(join(d, 'report.md'), 'utf8') };
}

describe('leak: mod-circulation retains memory per request', () => {
  // The verdict needs 2 minutes of samples in the judged window (the step without its first
  // fifth, the warm-up after minifolio's restart): LEAK_RUN of constant load gives that. GOGC=100:
  // minifolio runs its modules at GOGC 400, and a module called once per check-out (mod-notes)
  // then takes up to 3 minutes to grow its heap to the collector's target, a steady climb that no
  // rule can tell from a leak inside 2 minutes (a 13-minute run leaves it in its first fifth:
  // make bench-leak). At 100 every heap settles within seconds; the leak grows the live heap, so
  // it shows at any GOGC.
  const LEAK_RUN = '160s';
  let leak;
  before(() => {
    leak = profileRun('leak', { DURATION: LEAK_RUN, GOGC: '100' });
  });
  after(() => rmSync(join(repo, 'results', `${testid}-leak`), { recursive: true, force: true }));

  test('the memory table: a positive trend and the leak verdict for mod-circulation, no other module leaks', () => {
    const { caption, rows } = mdTable(leak.md, 'Module memory (RSS) trend');
    assert.match(caption, /its first fifth left out/);
    const byModule = Object.fromEntries(rows.map((r) => [r[0], r]));
    const circ = byModule['mod-circulation'];
    assert.ok(circ, JSON.stringify(rows));
    assert.match(circ[2], /^\+\d/, `growth MiB/h positive: ${circ.join(' | ')}`);
    assert.ok(parseFloat(circ[3]) > 5, `growth above the rule's 5 %/h: ${circ.join(' | ')}`);
    assert.match(circ[6], /^\+\d/, `growth over the window positive: ${circ.join(' | ')}`);
    assert.equal(circ[7], 'leak', circ.join(' | '));
    console.log(`leak: ${circ.join(' | ')}`);
    // every other minifolio process: no leak; the stack's PostgreSQL and InfluxDB: not judged
    for (const r of rows) {
      if (r[0] !== 'mod-circulation') assert.equal(r[7], ['postgres', 'influxdb'].includes(r[0]) ? 'not judged' : 'no leak', r.join(' | '));
    }
    assert.ok(rows.some((r) => r[0] === 'mod-users'), 'the other modules are in the table');
    assert.match(leak.md, /Leak verdict: mod-circulation leaks memory by the rule above\./);
  });

  test('raw module_stats agree: mod-circulation\'s RSS rose over the judged window (the step without its first fifth)', async () => {
    const edge = async (order) => (await influxQuery(`SELECT "value" FROM "http_reqs" WHERE "testid" = '${leak.id}' AND "vus" = '2' ORDER BY time ${order} LIMIT 1`))[0].values[0][0];
    const [from, to] = [await edge('ASC'), await edge('DESC')];
    const lo = Math.floor(from + (to - from) / 5);
    const [s] = await influxQuery(`SELECT "mem_rss_bytes" FROM "module_stats" WHERE "module" = 'mod-circulation' AND time >= ${lo}ms AND time <= ${to}ms`);
    const v = s.values.map((x) => x[1]);
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const third = Math.floor(v.length / 3);
    const avg = (a) => a.reduce((x, y) => x + y, 0) / a.length;
    // the last third's average above the first third's (two thirds of the window apart) by more than
    // 2 % of the mean: the raw-data side of the report's rise of over 5 % across the whole window
    assert.ok(avg(v.slice(-third)) - avg(v.slice(0, third)) > 0.02 * mean, `RSS ${v.map((x) => (x / 1048576).toFixed(1)).join(' ')} MiB`);
  });
});

describe('juniper-patron-blocks: the automated-patron-blocks API re-reads the patron\'s whole history', () => {
  // The seed's --events-per-user applies only to an empty tenant, and this stack's tenant is seeded
  // by whichever suite ran first. So the history is written here, for exactly the patrons the run
  // draws (the first VUS x POOL_PER_VU of the pool query), in the seed's event shape, and removed
  // afterwards (`reset` keeps it: its loans are not in the loan table). 10,000 events per patron,
  // the profile's LIMIT. Whether the API's p75 crosses the report's 100 ms line depends on the
  // machine (under 100 ms on a quiet one, several hundred on a busy one), so the mechanism is shown
  // by ratios measured within this one run, never by that line.
  const EVENTS = 10_000;
  const PATRONS = 10; // VUS 2 x POOL_PER_VU 5
  const BLOCKS = 'GET /automated-patron-blocks/{id}';
  const tenant = 'fs09000000';
  const tables = ['item_checked_out_event', 'item_checked_in_event'].map((t) => `${tenant}_mod_patron_blocks.${t}`);
  const forget = () => tables.forEach((t) => sql(`DELETE FROM ${t} WHERE jsonb ? 'e2eHistory'`));
  let juniper;
  before(() => {
    forget();
    const users = `SELECT u.id FROM ${tenant}_mod_users.users u WHERE u.jsonb->>'barcode' IN (SELECT jsonb_array_elements_text($1::jsonb))`;
    const barcodes = sql(`prepare u(int, text) as ${poolQueries(tenant).activeUsers}; execute u(${PATRONS}, 'folio_admin')`).split('\n').filter(Boolean);
    assert.equal(barcodes.length, PATRONS);
    const list = JSON.stringify(barcodes).replace(/'/g, "''");
    for (const [t, kind, date] of [[tables[0], 'out', 'dueDate'], [tables[1], 'in', 'returnDate']]) {
      sql(`PREPARE h(text) AS INSERT INTO ${t} (id, jsonb)
        SELECT md5('${kind}' || u.id || g)::uuid, jsonb_build_object('id', md5('${kind}' || u.id || g)::uuid, 'userId', u.id,
          'loanId', md5('loan' || u.id || g)::uuid, '${date}', to_char(timestamptz '2026-01-01' - g * interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS.MS+00:00'), 'e2eHistory', true)
        FROM (${users.replace('$1', '$1::text')}) u, generate_series(1, ${EVENTS}) g; EXECUTE h('${list}')`);
    }
    assert.equal(Number(sql(`SELECT count(*) FROM ${tables[0]} WHERE jsonb ? 'e2eHistory'`)), PATRONS * EVENTS);
    juniper = profileRun('juniper-patron-blocks', { DURATION: '40s', POOL_PER_VU: '5' }, [0, 99]);
  });
  after(() => {
    forget();
    rmSync(join(repo, 'results', `${testid}-juniper-patron-blocks`), { recursive: true, force: true });
  });

  // The step at 2 users from the run's raw samples (what the report reads): per value of `tag`,
  // the sum, count and p75 of `measurement`.
  async function step(measurement, tag) {
    const series = await influxQuery(`SELECT sum("value"), count("value"), percentile("value", 75) FROM "${measurement}"
      WHERE "testid" = '${juniper.id}' AND "vus" = '2' GROUP BY "${tag}"`);
    return new Map(series.map((s) => [s.tags[tag], { sum: s.values[0][1], count: s.values[0][2], p75: s.values[0][3] }]));
  }

  test('the patron-block call is most of check-out\'s time and many times the other GETs (ratios within the run)', async () => {
    const apis = await step('http_req_duration', 'name');
    const checkout = (await step('transaction_duration', 'transaction')).get('check-out');
    const blocks = apis.get(BLOCKS);
    assert.ok(blocks && checkout, `samples of ${BLOCKS} and check-out at 2 users: ${[...apis.keys()].join(', ')}`);
    // Its share of the check-out transactions' time (the UI calls it before the POST, which calls
    // it once more inside mod-circulation: that third read is the POST's, not counted here). With a
    // short history it is a few per cent: a lookup among a dozen calls of the same size.
    const share = blocks.sum / checkout.sum;
    // Against the check-out's and check-in's other GETs, each a lookup on an index: their median p75.
    const others = [...apis].filter(([n]) => n.startsWith('GET ') && n !== BLOCKS).map(([, v]) => v.p75).sort((a, b) => a - b);
    const typical = others[Math.floor(others.length / 2)];
    const line = `${BLOCKS}: p75 ${blocks.p75.toFixed(1)} ms, ${(100 * share).toFixed(0)} % of check-out's time; `
      + `the other ${others.length} GETs' median p75 ${typical.toFixed(1)} ms (${(blocks.p75 / typical).toFixed(0)}x)`;
    console.log(`juniper: ${line}`);
    assert.ok(share > 1 / 3, `more than a third of check-out's time: ${line}`);
    assert.ok(blocks.p75 > 10 * typical, `over 10 times a typical GET: ${line}`);
  });

  test('the slow-API table holds the call exactly when its p75 is over the line, with summary.json\'s p75', () => {
    const { caption, rows } = mdTable(juniper.md, 'Slow APIs');
    const line = Number(/p75 > (\d+) ms/.exec(caption)[1]);
    const p75 = juniper.summary.k6.metrics[`http_req_duration{name:${BLOCKS},vus:2}`].values['p(75)'];
    const row = rows.find((r) => r[0] === BLOCKS && r[1] === '2');
    const listed = juniper.summary.tables.slowApis.some((r) => r.name === BLOCKS && r.vus === 2);
    console.log(`juniper: k6's p75 ${p75.toFixed(1)} ms, line ${line} ms, ${row ? 'in' : 'not in'} the slow-API table`);
    assert.equal(Boolean(row), p75 > line, JSON.stringify(rows));
    assert.equal(listed, p75 > line, 'summary.json tables.slowApis agrees');
    if (row) assert.equal(row[2], p75.toFixed(1), row.join(' | '));
  });
});
