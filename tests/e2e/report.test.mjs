// `folio-perf report` on real CICO runs: folio-perf run (minifolio fast, 1 then 2 users) on the
// tests' stack, then the report; a sample of its cells recomputed straight from summary.json and
// InfluxDB (they must agree), the record of what was tested against what the target and the
// checkout said at the start, the HTML opened in headless Chromium (tables and every chart's
// series in the DOM, nothing wider than the window, the Summary above the first table and its
// pass / regress / worst-API findings on the first 1280x800 screen, screenshots kept next to the
// report). Then a `lotus` run with a failed threshold: its report against the `fast` run (every
// finding checked against its row, FAILED first), the `fast` report written again after minifolio
// restarted under `lotus` (still `fast`'s module versions), compare, an interrupted run, and the
// bad inputs: one line, exit 1, no report written.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import { repo, env, bin, influxQuery, run, waitFor, mdTable, sql, folioPerf as cli, childEnv } from './helpers.mjs';
import { checkSummary } from '../summary-check.mjs';

const testid = `e2e-report-${Date.now()}`;
const dir = join(repo, 'results', testid);
let summary;
let md;


before(() => {
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { PROFILE: 'smoke', VUS: '1,2', DURATION: '20s', MINIFOLIO_PROFILE: 'fast', TESTID: testid },
    timeoutMs: 300_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  // the run tells the user the report command
  assert.match(r.stdout, new RegExp(`folio-perf report ${testid}`));
  summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const rep = cli(['report', testid]);
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  md = readFileSync(join(dir, 'report.md'), 'utf8');
});

// The module list minifolio's gateway announces now, as Okapi does.
async function announced() {
  const res = await fetch(`http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}/_/proxy/tenants/fs09000000/modules`);
  assert.equal(res.status, 200);
  return (await res.json()).map((m) => m.id).sort();
}
const versionRows = (text) => mdTable(text, 'Module versions').rows.map((r) => `${r[0]}-${r[1]}`).sort();

// A copy of the page with a probe (the page itself runs no script) that writes what the browser
// laid out into the DOM; Chromium at the given window size dumps it.
function probePage(file, probe, size = '1280,800') {
  const tmp = mkdtempSync(join(tmpdir(), 'fp-report-'));
  const probed = join(tmp, 'probe.html');
  const html = readFileSync(file, 'utf8');
  writeFileSync(probed, html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '').replace('</body>', `<script>${probe}
    const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);</script></body>`));
  const dom = run('chromium', ['--headless', '--no-sandbox', '--disable-gpu', `--window-size=${size}`, '--virtual-time-budget=3000', '--dump-dom', `file://${probed}`], { timeoutMs: 60_000 });
  rmSync(tmp, { recursive: true, force: true });
  assert.equal(dom.status, 0, dom.stderr);
  return JSON.parse(dom.stdout.match(/<pre id="probe">([^<]*)<\/pre>/)[1].replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
}

// The first screen (1280x800): where the Summary and the first table are, and each finding's text
// and bottom edge; a screenshot of exactly that screen kept as results/<testid>/first-screen.png.
function firstScreen(reportDir) {
  const found = probePage(
    join(reportDir, 'report.html'),
    `const s = document.getElementById('s-summary').getBoundingClientRect();
     const t = document.querySelector('table').getBoundingClientRect();
     const out = { summaryTop: s.top, summaryBottom: s.bottom, tableTop: t.top, height: window.innerHeight,
       items: [...document.querySelectorAll('#s-summary li')].map((li) => ({ text: li.textContent, bottom: li.getBoundingClientRect().bottom })) };`,
  );
  const shot = join(reportDir, 'first-screen.png');
  const r = run('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--window-size=1280,800', `--screenshot=${shot}`, `file://${join(reportDir, 'report.html')}`], { timeoutMs: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const png = readFileSync(shot);
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1280, 800], 'a screenshot of the first screen');
  return found;
}
// The first screen answers: did it pass, did it regress, what is the worst API.
function assertFirstScreen(found, { pass, regress }) {
  assert.ok(found.summaryTop < found.tableTop && found.summaryBottom <= found.tableTop, `the Summary (${found.summaryTop}-${found.summaryBottom}px) is above the first table (${found.tableTop}px)`);
  const on = (re, what) => {
    const item = found.items.find((i) => re.test(i.text));
    assert.ok(item, `${what}: ${found.items.map((i) => i.text).join(' / ')}`);
    assert.ok(item.bottom <= found.height, `${what} on the first screen: ends at ${item.bottom}px of ${found.height}`);
  };
  on(pass, 'did it pass');
  on(regress, 'did it regress');
  on(/^Worst API \(highest p95 with the most users\): \S+ \//, 'what is the worst API');
}

test('response-time table: every cell is summary.json\'s number (seconds, one row per user count and transaction)', () => {
  const { head, rows } = mdTable(md, 'Response times');
  assert.equal(rows.length, 4, 'users 1 and 2 x check-in and check-out');
  const col = (n) => head.indexOf(n);
  for (const r of summary.tables.responseTimes) {
    for (const t of ['check-in', 'check-out']) {
      const row = rows.find((x) => x[0] === String(r.vus) && x[1] === t);
      assert.ok(row, `row for ${r.vus} users, ${t}`);
      // the table's decimals: at least 3, more when its smallest figure would keep under 2 digits
      const d = row[col('avg')].split('.')[1].length;
      assert.ok(d >= 3, row.join(' | '));
      for (const s of ['avg', 'p75', 'p95']) assert.equal(row[col(s)], r[t][s].toFixed(d));
      assert.equal(Number(row[col('n')]), r[t].count);
    }
  }
  for (const r of rows) for (const c of r.slice(2, 6)) assert.doesNotMatch(c, /^0\.00[01]$/, 'no cell rounds to 0.001 s');
});

// The step windows, recomputed with another query shape than the report's (raw rows, not first/last).
async function windowOf(vus) {
  const [a] = await influxQuery(`SELECT "value" FROM "http_reqs" WHERE "testid" = '${testid}' AND "vus" = '${vus}' ORDER BY time ASC LIMIT 1`);
  const [b] = await influxQuery(`SELECT "value" FROM "http_reqs" WHERE "testid" = '${testid}' AND "vus" = '${vus}' ORDER BY time DESC LIMIT 1`);
  return [a.values[0][0], b.values[0][0]];
}

test('steps and module CPU/memory agree with InfluxDB over each step\'s window', async () => {
  const steps = mdTable(md, 'User-count steps').rows;
  const modules = mdTable(md, 'Module CPU').rows;
  assert.ok(modules.length > 0, 'module rows');
  for (const vus of [1, 2]) {
    const [from, to] = await windowOf(vus);
    const step = steps.find((r) => r[0] === String(vus));
    assert.equal(step[1], new Date(from).toISOString().replace(/\.\d+Z$/, 'Z'));
    assert.equal(step[2], new Date(to).toISOString().replace(/\.\d+Z$/, 'Z'));
    for (const mod of ['okapi', 'mod-circulation']) {
      const [s] = await influxQuery(`SELECT mean("cpu_percent"), max("mem_rss_bytes") FROM "module_stats" WHERE "module" = '${mod}' AND time >= ${from}ms AND time <= ${to}ms`);
      const row = modules.find((r) => r[0] === mod && r[1] === String(vus));
      assert.ok(row, `${mod} at ${vus} users in the module table`);
      assert.equal(row[2], s.values[0][1].toFixed(1), `${mod} CPU avg at ${vus} users`);
      assert.equal(row[5], (s.values[0][2] / 1048576).toFixed(1), `${mod} RSS max at ${vus} users`);
    }
  }
});

test('errors table: the failed requests InfluxDB holds for the run (by status), none in a clean run', async () => {
  const series = await influxQuery(`SELECT count("value") FROM "http_reqs" WHERE "testid" = '${testid}' GROUP BY "status"`);
  const failed = series.filter((s) => Number(s.tags.status) >= 400 || s.tags.status === '0').reduce((n, s) => n + s.values[0][1], 0);
  const ok = series.filter((s) => Number(s.tags.status) < 400 && s.tags.status !== '0').reduce((n, s) => n + s.values[0][1], 0);
  assert.ok(ok > 0, 'requests recorded');
  if (failed === 0) assert.match(md, /_No request failed\._/);
  else assert.equal(mdTable(md, 'Errors by API').rows.reduce((n, r) => n + Number(r[2]), 0), failed);
});

test('the record: what the target announced and the checkout was at the run\'s start, no barcode or password', async () => {
  const rec = summary.meta.record;
  assert.ok(rec, 'summary.json meta.record');
  assert.equal(rec.platform, 'Okapi');
  // minifolio still runs the fast profile: the same list as now
  assert.deepEqual(rec.modules.map((m) => m.id).sort(), await announced());
  assert.deepEqual(versionRows(md), await announced());
  assert.match(rec.gateway, /^okapi \d/);
  assert.equal(rec.k6.version, /k6 v(\S+)/.exec(run(bin('k6'), ['version']).stdout)[1]);
  assert.equal(rec.folioPerf.commit, run('git', ['rev-parse', 'HEAD']).stdout.trim());
  assert.equal(rec.machine.cores, availableParallelism());
  assert.ok(rec.machine.memoryBytes > 2 ** 28);
  assert.deepEqual(rec.load, { profile: 'smoke', steps: [1, 2], stepDuration: '20s', think: 'none' });
  assert.equal(rec.data.items, Number(sql('SELECT count(*) FROM fs09000000_mod_inventory_storage.item')));
  assert.equal(rec.data.users, Number(sql('SELECT count(*) FROM fs09000000_mod_users.users')));
  assert.equal(rec.data.instances, Number(sql('SELECT count(*) FROM fs09000000_mod_inventory_storage.instance')));
  assert.deepEqual(rec.problems, []);
  // the Setup table says the same
  const kv = Object.fromEntries(mdTable(md, 'The run').rows);
  assert.equal(kv.Platform, 'Okapi');
  assert.equal(kv['Data: items'], String(rec.data.items));
  assert.equal(kv.k6, rec.k6.version);
  // no barcode of the items and patrons the run used, no password, anywhere in summary.json
  const text = readFileSync(join(dir, 'summary.json'), 'utf8');
  const barcodes = sql(`(SELECT i.jsonb->>'barcode' FROM fs09000000_mod_circulation_storage.loan l JOIN fs09000000_mod_inventory_storage.item i ON i.id = (l.jsonb->>'itemId')::uuid LIMIT 50)
    UNION ALL (SELECT u.jsonb->>'barcode' FROM fs09000000_mod_circulation_storage.loan l JOIN fs09000000_mod_users.users u ON u.id = (l.jsonb->>'userId')::uuid LIMIT 50)`).split('\n').filter(Boolean);
  assert.ok(barcodes.length > 0, 'the run made loans');
  for (const b of barcodes) assert.ok(!text.includes(b), `barcode ${b} in summary.json`);
  assert.ok(!text.includes(env('FOLIO_DB_PASSWORD')), 'the database password');
  // the record's requests count in no table: not in the errors, not in the per-API tables
  const named = await influxQuery(`SELECT count("value") FROM "http_reqs" WHERE "testid" = '${testid}' AND "name" =~ /^record / GROUP BY "name"`);
  assert.ok(named.length >= 4, 'setup made the record\'s requests');
  assert.doesNotMatch(md, /\| record GET/);
});

test('the Summary: every finding\'s numbers are in the row it cites; a clean run passes and says why regression is not judged', () => {
  const items = checkSummary(md);
  assert.match(items[0].text, /^\*\*passed\*\*: SLO thresholds, (\d+) of \1 held$/);
  assert.ok(items.some((i) => i.cannot && /Regression verdict: no previous release given/.test(i.text)));
  assert.ok(items.some((i) => /^Worst API/.test(i.text)));
  assert.ok(items.some((i) => i.cannot && /Longevity: the run changes its load/.test(i.text)), 'no longevity verdict on a stepped run');
  assert.ok(!/^## Longevity$/m.test(md), 'no Longevity section');
});

test('the HTML in headless Chromium: tables and every chart with its series, nothing overflows; the first screen answers; screenshots kept', () => {
  const found = probePage(
    join(dir, 'report.html'),
    `const svgs = [...document.querySelectorAll('svg.chart')];
    const out = { tables: [...document.querySelectorAll('table')].map((t) => t.id), tableRight: [...document.querySelectorAll('table')].map((t) => [t.id, t.getBoundingClientRect().right]), charts: svgs.map((s) => ({ title: s.getAttribute('aria-label'), section: s.closest('section').id, names: [...s.querySelectorAll('path.series')].map((p) => p.dataset.series), paths: [...s.querySelectorAll('path.series')].map((p) => Number(p.dataset.points)), lines: [...s.querySelectorAll('path.series')].map((p) => (p.getAttribute('d').match(/L/g) || []).length), right: s.getBoundingClientRect().right, labels: [...s.querySelectorAll('text.step-label, text.legend')].map((t) => { const r = t.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom, t.textContent]; }) })), scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth };`,
    '1280,2000',
  );
  for (const id of ['verdict', 'thresholds', 'setup', 'steps', 'module-versions', 'cico-response-times', 'cico-apis', 'modules']) assert.ok(found.tables.includes(id), `table ${id}: ${found.tables}`);
  assert.equal(found.charts.length, 4, 'response time, throughput, CPU, memory');
  const byTitle = (t) => found.charts.find((c) => c.title.startsWith(t));
  // beside the section each explains
  assert.deepEqual(found.charts.map((c) => c.section), ['s-cico', 's-cico', 's-modules', 's-modules']);
  assert.equal(byTitle('Response time').paths.length, 2, 'check-in and check-out');
  assert.equal(byTitle('Throughput').paths.length, 2);
  assert.ok(byTitle('Module CPU').paths.length >= 5, 'a path per module');
  // Drawn, not only points: most of each series' points are joined by a segment. Every transaction
  // series, and the modules this run loaded; a process that only stopped at the run's start (e.g.
  // the previous run's mod-search) may have a single point, drawn as a dot.
  const drawn = (c, i) => {
    assert.ok(c.paths[i] >= 2, `${c.title}: ${c.names[i]} has ${c.paths[i]} points`);
    assert.ok(c.lines[i] >= c.paths[i] / 2, `${c.title}: ${c.names[i]}: ${c.lines[i]} segments for ${c.paths[i]} points`);
  };
  for (const t of ['Response time', 'Throughput']) byTitle(t).names.forEach((_, i) => drawn(byTitle(t), i));
  for (const t of ['Module CPU', 'Module memory']) {
    const c = byTitle(t);
    for (const m of ['okapi', 'mod-circulation', 'mod-users', 'postgres']) {
      assert.ok(c.names.includes(m), `${t}: ${m} in ${c.names}`);
      drawn(c, c.names.indexOf(m));
    }
  }
  // no two labels of a chart overlap as the browser drew them (step labels, legend)
  for (const c of found.charts) {
    for (let i = 0; i < c.labels.length; i++) {
      for (let j = i + 1; j < c.labels.length; j++) {
        const [a, b] = [c.labels[i], c.labels[j]];
        assert.ok(a[1] <= b[0] || b[1] <= a[0] || a[3] <= b[2] || b[3] <= a[2], `${c.title}: "${a[4]}" and "${b[4]}" overlap`);
      }
    }
  }
  assert.ok(found.scrollWidth <= found.width, `page ${found.scrollWidth}px wide in a ${found.width}px window`);
  for (const c of found.charts) assert.ok(c.right <= found.width, `${c.title} ends at ${c.right}px`);
  // a table wider than its box would scroll inside it: none does
  for (const [id, right] of found.tableRight) assert.ok(right <= found.width - 16, `table ${id} ends at ${right}px`);

  assertFirstScreen(firstScreen(dir), { pass: /^passed: SLO thresholds/, regress: /^Not judged: Regression verdict/ });
  const shot = join(dir, 'report-screenshot.png');
  // Tall enough for the whole page of a two-step run, charts included.
  const r = run('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--window-size=1280,5200', `--screenshot=${shot}`, `file://${join(dir, 'report.html')}`], { timeoutMs: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(readFileSync(shot).readUInt32BE(16), 1280, 'screenshot width');
});

test('compare of the run with itself: every row within noise', () => {
  const r = cli(['compare', testid, testid]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const cmp = readFileSync(join(repo, 'results', `compare-${testid}-vs-${testid}`, 'report.md'), 'utf8');
  const rows = mdTable(cmp, 'Response times').rows;
  assert.equal(rows.length, 16);
  assert.ok(rows.every((x) => x[5] === 'within noise' && x[3] === '+0.0%'), JSON.stringify(rows));
  // the database tables too: the same statements and modules, no change; periods are not compared
  // for a stepped run (longevity cannot judge one), and the comparison says why
  assert.match(cmp, /Response time per period: not compared \(A: the run changes its load/);
  for (const caption of ['Statements in the top 10', 'RMB "Doing … without index"']) {
    const t = mdTable(cmp, caption).rows;
    assert.ok(t.length > 0, caption);
    assert.ok(t.every((x) => ['within noise', '-'].includes(x[5]) && ['+0.0%', '-'].includes(x[3])), `${caption}: ${JSON.stringify(t)}`);
  }
  rmSync(join(repo, 'results', `compare-${testid}-vs-${testid}`), { recursive: true, force: true });
});

// A lotus run beside the fast one: lotus adds service time (check-in about 0.6 s, check-out about
// 1 s) where fast has none, so every response-time row against fast has lotus slower by far more
// than the gate's tolerance and slack, and the two POSTs are slow APIs only under lotus. Its
// thresholds file (a copy of thresholds.json) gives check-out 1 ms, so it fails a threshold.
test('a lotus run with a failed threshold, against the fast run: FAILED and regressed on the first screen, every finding in its row; the fast report still lists fast\'s versions; swapped, improved; compare', async () => {
  const lotus = `${testid}-lotus`;
  const tight = JSON.parse(readFileSync(join(repo, 'thresholds.json'), 'utf8'));
  tight.workflows.cico.transactions['check-out']['p(95)'] = 1;
  const thresholds = join('results', `${lotus}-thresholds.json`);
  writeFileSync(join(repo, thresholds), JSON.stringify(tight));
  const fastVersions = await announced();
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { PROFILE: 'smoke', VUS: '1,2', DURATION: '20s', MINIFOLIO_PROFILE: 'lotus', TESTID: lotus, THRESHOLDS: thresholds },
    timeoutMs: 300_000,
  });
  const reportOf = (id, args = []) => {
    const c = cli(['report', id, ...args]);
    assert.equal(c.status, 0, c.stdout + c.stderr);
    return readFileSync(join(repo, 'results', id, 'report.md'), 'utf8');
  };
  try {
    assert.equal(r.status, 99, `the threshold fails the run (k6's 99)\n${r.stdout.slice(-2000)}${r.stderr}`);
    // minifolio now runs lotus: it announces other versions, and fast's report still has fast's
    const now = await announced();
    assert.notDeepEqual(now, fastVersions, 'lotus announces other module versions than fast');
    assert.deepEqual(versionRows(reportOf(testid)), fastVersions, "the fast run's report: the versions announced at its start");
    const lotusMd = reportOf(lotus, ['--against', testid]);
    assert.deepEqual(versionRows(lotusMd), now);

    // findings: FAILED first with the failed threshold, then regressed against fast; every number in its row
    const items = checkSummary(lotusMd);
    assert.match(items[0].text, /^\*\*FAILED\*\*: SLO thresholds, 1 of \d+ failed$/);
    assert.match(items[1].text, /^Threshold failed: `transaction_duration\{transaction:check-out\}` `p\(95\)<1`, measured \d+\.\d ms$/);
    const reg = items.find((i) => /against `fast`: \d+ of \d+ compared rows regressed/.test(i.text));
    assert.ok(reg, items.map((i) => i.text).join('\n'));
    assert.match(reg.text, /^\*\*regressed\*\*/);
    assert.ok(items.some((i) => /^`check-out` at 2 users: avg \d+\.\d+ s, \d+\.\d% slower than `fast`/.test(i.text)), 'X % slower than the previous release');
    const found = firstScreen(join(repo, 'results', lotus));
    assertFirstScreen(found, { pass: /^FAILED: SLO thresholds/, regress: /^regressed against fast/ });

    // the response-time table: A (fast), B (lotus), Δ, verdict, every row regressed
    const rt = mdTable(lotusMd, 'Response times');
    assert.match(rt.caption, /A = fast \(e2e-report-\d+\), B = this run/);
    assert.equal(rt.rows.length, 4);
    const col = (n) => rt.head.indexOf(n);
    for (const row of rt.rows) {
      assert.ok(Number(row[col('p95 B')]) > Number(row[col('p95 A')]), row.join(' | '));
      assert.match(row[col('Δ avg')], /^\+\d/);
      assert.match(row[col('Verdict')], /^regressed: /, row.join(' | '));
    }
    // the two POSTs: slow only under lotus, so their rows are there and regressed
    const slow = mdTable(lotusMd, 'Slow APIs');
    for (const api of ['POST /circulation/check-out-by-barcode', 'POST /circulation/check-in-by-barcode']) {
      const row = slow.rows.find((x) => x[0] === api && x[1] === '2');
      assert.ok(row, `${api} in the slow-API table: ${JSON.stringify(slow.rows)}`);
      assert.match(row[slow.head.indexOf('Verdict')], /^regressed/, row.join(' | '));
    }
    // fast against lotus: the same rows improved
    const back = reportOf(testid, ['--against', lotus]);
    checkSummary(back);
    const bt = mdTable(back, 'Response times');
    for (const row of bt.rows) assert.match(row[bt.head.indexOf('Verdict')], /^improved: /, row.join(' | '));
    assert.ok(checkSummary(back).some((i) => /faster than `lotus`/.test(i.text)));

    // compare remains for two arbitrary runs
    const c = cli(['compare', testid, lotus]);
    assert.equal(c.status, 0, c.stdout + c.stderr);
    const rows = mdTable(readFileSync(join(repo, 'results', `compare-${testid}-vs-${lotus}`, 'report.md'), 'utf8'), 'Response times').rows;
    assert.equal(rows.length, 16, 'users 1 and 2 x check-in/check-out x avg/p50/p75/p95');
    for (const [label, a, b, delta, times, v] of rows) {
      assert.ok(Number(b) > Number(a), `${label}: lotus ${b} s > fast ${a} s`);
      assert.match(delta, /^\+\d/, `${label}: Δ % positive`);
      assert.ok(Number(times.replace(/x$/, '')) < 1, `${label}: times better ${times} < 1`);
      assert.equal(v, 'regressed', label);
    }
  } finally {
    for (const d of [lotus, `compare-${testid}-vs-${lotus}`]) rmSync(join(repo, 'results', d), { recursive: true, force: true });
    rmSync(join(repo, thresholds), { force: true });
    // the fast report as the earlier tests read it
    cli(['report', testid]);
  }
});

test('a run interrupted with SIGINT in its first step: the report says so and reports that step', async () => {
  const id = `${testid}-sigint`;
  const child = spawn(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    cwd: repo,
    detached: true, // own process group: the signal reaches folio-perf as Ctrl-C would (it passes it on to k6)
    // a short TEARDOWN_SETTLE: what is tested is the report of the steps that ran, not teardown
    env: childEnv({ PROFILE: 'smoke', VUS: '1,2', DURATION: '30s', MINIFOLIO_PROFILE: 'fast', TESTID: id, TEARDOWN_SETTLE: '5s' }),
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await waitFor(async () => (await influxQuery(`SELECT count("value") FROM "transaction_duration" WHERE "testid" = '${id}'`)).length > 0, { seconds: 90, what: 'the run\'s first transactions' });
    process.kill(-child.pid, 'SIGINT');
    assert.notEqual(await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 90_000))]), null, 'the interrupted run stopped within 90 s');
  } finally {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const r = cli(['report', id]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const text = readFileSync(join(repo, 'results', id, 'report.md'), 'utf8');
  assert.match(text, /This run was interrupted: 1 of 2 steps have samples/);
  assert.deepEqual(mdTable(text, 'User-count steps').rows.map((x) => x[0]), ['1']);
  assert.deepEqual([...new Set(mdTable(text, 'Response times').rows.map((x) => x[0]))], ['1'], 'the rows of the step that ran');
  rmSync(join(repo, 'results', id), { recursive: true, force: true });
});

test('bad input: one line with the fix, exit 1, no report left behind', async (t) => {
  const oneLine = (r) => {
    assert.equal(r.status, 1);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^folio-perf: .*fix: /);
    return lines[0];
  };
  await t.test('unknown test id names the most recent ones', () => {
    const line = oneLine(cli(['report', 'no-such-run']));
    assert.match(line, /unknown test id no-such-run/);
    assert.match(line, new RegExp(testid));
  });
  await t.test('a run without summary.json', () => {
    const empty = join(repo, 'results', `${testid}-empty`);
    mkdirSync(empty, { recursive: true });
    assert.match(oneLine(cli(['report', `${testid}-empty`])), /summary\.json is missing/);
    assert.deepEqual(readdirSync(empty), []);
    rmSync(empty, { recursive: true });
  });
  await t.test('InfluxDB unreachable: the existing report untouched, no temp file', () => {
    const before = statSync(join(dir, 'report.md')).mtimeMs;
    assert.match(oneLine(cli(['report', testid, '--influx', 'http://127.0.0.1:1'])), /InfluxDB not reachable/);
    assert.equal(statSync(join(dir, 'report.md')).mtimeMs, before);
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp')), []);
  });
  await t.test('InfluxDB without the run\'s samples', () => {
    const other = join(repo, 'results', `${testid}-elsewhere`);
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'summary.json'), JSON.stringify({ ...summary, meta: { ...summary.meta, testid: `${testid}-elsewhere` } }));
    assert.match(oneLine(cli(['report', `${testid}-elsewhere`])), /has no samples of run/);
    assert.ok(!existsSync(join(other, 'report.md')) && !existsSync(join(other, 'report.html')));
    rmSync(other, { recursive: true });
  });
  await t.test('--against: neither a run nor a baseline; a run of another workflow', () => {
    assert.match(oneLine(cli(['report', testid, '--against', 'no-such-run'])), /--against no-such-run is neither a run under results\/ nor a baseline file/);
    const other = join(repo, 'results', `${testid}-other`);
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'summary.json'), JSON.stringify({ ...summary, meta: { ...summary.meta, workflow: 'search', testid: `${testid}-other` } }));
    assert.match(oneLine(cli(['report', testid, '--against', `${testid}-other`])), /is a search run and this a cico run/);
    rmSync(other, { recursive: true });
    // the report asks no FOLIO (the run recorded what was tested): it takes no FOLIO URL
    assert.match(oneLine(cli(['report', testid, '--folio-url', 'http://127.0.0.1:1'])), /Unknown option '--folio-url'/);
  });
  await t.test('compare of two workflows', () => {
    const other = join(repo, 'results', `${testid}-search`);
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'summary.json'), JSON.stringify({ ...summary, meta: { ...summary.meta, workflow: 'search', testid: `${testid}-search` } }));
    assert.match(oneLine(cli(['compare', testid, `${testid}-search`])), /same workflow/);
    assert.ok(!existsSync(join(repo, 'results', `compare-${testid}-vs-${testid}-search`)));
    rmSync(other, { recursive: true });
  });
});
