// `folio-perf report` on a real CICO run: folio-perf run (minifolio fast, 1 then 2 users) on the
// tests' stack, then the report; a sample of its cells recomputed straight from summary.json and
// InfluxDB (they must agree), the HTML opened in headless Chromium (tables and every chart's
// series in the DOM, nothing wider than the window, a screenshot kept next to the report), and
// the bad inputs: one line, exit 1, no report written.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { repo, env, influxQuery, run, waitFor, mdTable, folioPerf as cli, childEnv } from './helpers.mjs';

const testid = `e2e-report-${Date.now()}`;
const dir = join(repo, 'results', testid);
let summary;
let md;


before(() => {
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { PROFILE: 'smoke', VUS: '1,2', DURATION: '20s', MINIFOLIO_PROFILE: 'fast', TESTID: testid, SEED_ITEMS: '3000', SEED_USERS: '100', SEED_LOANS: '100' },
    timeoutMs: 300_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  // the run tells the user the report command
  assert.match(r.stdout, new RegExp(`folio-perf report ${testid}`));
  summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const rep = cli(['report', testid, '--folio-url', `http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}`]);
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  md = readFileSync(join(dir, 'report.md'), 'utf8');
});

test('response-time table: every cell is summary.json\'s number', () => {
  const { rows } = mdTable(md, 'Response times');
  assert.equal(rows.length, 2, 'one row per user count (1, 2)');
  for (const r of summary.tables.responseTimes) {
    const row = rows.find((x) => x[0] === String(r.vus));
    assert.ok(row, `row for ${r.vus} users`);
    assert.equal(row[1], r['check-in'].avg.toFixed(3));
    assert.equal(row[3], r['check-in'].p75.toFixed(3));
    assert.equal(row[8], r['check-out'].p95.toFixed(3));
    assert.equal(Number(row[10]), r['check-out'].count);
  }
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

test('module versions: what the target answers, or "not available" without failing', async () => {
  let ids = null;
  try {
    const res = await fetch(`http://127.0.0.1:${env('FP_MINIFOLIO_PORT')}/_/proxy/tenants/fs09000000/modules`);
    if (res.ok) ids = (await res.json()).map((m) => m.id);
  } catch {
    // minifolio stopped: the report said not available
  }
  if (ids && ids.length) for (const id of ids) assert.match(md, new RegExp(`\\| ${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\|`));
  else assert.match(md, /Module versions: not available/);
});

test('the HTML in headless Chromium: tables and every chart with its series, nothing overflows; screenshot kept', () => {
  const html = readFileSync(join(dir, 'report.html'), 'utf8');
  // A copy without the page's no-script policy plus a probe that writes its findings into the DOM.
  const probe = `<script>
    const svgs = [...document.querySelectorAll('svg.chart')];
    const out = { tables: [...document.querySelectorAll('table')].map((t) => t.id), tableRight: [...document.querySelectorAll('table')].map((t) => [t.id, t.getBoundingClientRect().right]), charts: svgs.map((s) => ({ title: s.getAttribute('aria-label'), names: [...s.querySelectorAll('path.series')].map((p) => p.dataset.series), paths: [...s.querySelectorAll('path.series')].map((p) => Number(p.dataset.points)), lines: [...s.querySelectorAll('path.series')].map((p) => (p.getAttribute('d').match(/L/g) || []).length), right: s.getBoundingClientRect().right })), scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth };
    const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
  </script>`;
  const tmp = mkdtempSync(join(tmpdir(), 'fp-report-'));
  const probed = join(tmp, 'probe.html');
  writeFileSync(probed, html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '').replace('</body>', `${probe}</body>`));
  const chrome = ['--headless', '--no-sandbox', '--disable-gpu', '--window-size=1280,2000', '--virtual-time-budget=3000'];
  const dom = run('chromium', [...chrome, '--dump-dom', `file://${probed}`], { timeoutMs: 60_000 });
  assert.equal(dom.status, 0, dom.stderr);
  const found = JSON.parse(dom.stdout.match(/<pre id="probe">([^<]*)<\/pre>/)[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
  for (const id of ['setup', 'steps', 'cico-response-times', 'modules']) assert.ok(found.tables.includes(id), `table ${id}: ${found.tables}`);
  assert.equal(found.charts.length, 4, 'response time, CPU, throughput, memory');
  const byTitle = (t) => found.charts.find((c) => c.title.startsWith(t));
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
  assert.ok(found.scrollWidth <= found.width, `page ${found.scrollWidth}px wide in a ${found.width}px window`);
  for (const c of found.charts) assert.ok(c.right <= found.width, `${c.title} ends at ${c.right}px`);
  // a table wider than its box would scroll inside it: none does
  for (const [id, right] of found.tableRight) assert.ok(right <= found.width - 16, `table ${id} ends at ${right}px`);

  const shot = join(dir, 'report-screenshot.png');
  // Tall enough for the whole page of a two-step run, charts included.
  const r = run('chromium', [...chrome.filter((a) => !a.startsWith('--window-size')), '--window-size=1280,3400', `--screenshot=${shot}`, `file://${join(dir, 'report.html')}`], { timeoutMs: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const png = readFileSync(shot);
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.equal(png.readUInt32BE(16), 1280, 'screenshot width');
  rmSync(tmp, { recursive: true, force: true });
});

test('compare of the run with itself: every row within noise', () => {
  const r = cli(['compare', testid, testid]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const cmp = readFileSync(join(repo, 'results', `compare-${testid}-vs-${testid}`, 'report.md'), 'utf8');
  const rows = mdTable(cmp, 'Response times').rows;
  assert.equal(rows.length, 16);
  assert.ok(rows.every((x) => x[5] === 'within noise' && x[3] === '+0.0%'), JSON.stringify(rows));
  // the database and longevity tables too: the same statements, periods and modules, no change
  for (const caption of ['Statements in the top 10', 'Response time per period', 'RMB "Doing … without index"']) {
    const t = mdTable(cmp, caption).rows;
    assert.ok(t.length > 0, caption);
    assert.ok(t.every((x) => ['within noise', '-'].includes(x[5]) && ['+0.0%', '-'].includes(x[3])), `${caption}: ${JSON.stringify(t)}`);
  }
  rmSync(join(repo, 'results', `compare-${testid}-vs-${testid}`), { recursive: true, force: true });
});

// A lotus run beside the fast one: lotus adds service time (check-in about 0.6 s, check-out about
// 1 s) where fast has none, so every response-time row of the comparison has B slower than A by
// far more than the gate's tolerance and slack, and the two POSTs are slow APIs only under lotus.
test('compare of a fast and a lotus run: lotus regressed on every response-time row; swapped, improved', () => {
  const lotus = `${testid}-lotus`;
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { PROFILE: 'smoke', VUS: '1,2', DURATION: '20s', MINIFOLIO_PROFILE: 'lotus', TESTID: lotus },
    timeoutMs: 300_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const table = (a, b, caption) => {
    const c = cli(['compare', a, b]);
    assert.equal(c.status, 0, c.stdout + c.stderr);
    return mdTable(readFileSync(join(repo, 'results', `compare-${a}-vs-${b}`, 'report.md'), 'utf8'), caption).rows;
  };
  try {
    const rows = table(testid, lotus, 'Response times');
    assert.equal(rows.length, 16, 'users 1 and 2 x check-in/check-out x avg/p50/p75/p95');
    for (const [label, a, b, delta, times, v] of rows) {
      assert.ok(Number(b) > Number(a), `${label}: lotus ${b} s > fast ${a} s`);
      assert.match(delta, /^\+\d/, `${label}: Δ % positive`);
      assert.ok(Number(times.replace(/x$/, '')) < 1, `${label}: times better ${times} < 1`);
      assert.equal(v, 'regressed', label);
    }
    // the POSTs: slow only under lotus, so their rows are there and regressed
    const slow = table(testid, lotus, 'APIs slow');
    for (const api of ['POST /circulation/check-out-by-barcode', 'POST /circulation/check-in-by-barcode']) {
      const row = slow.find((x) => x[0].startsWith(api));
      assert.ok(row, `${api} in the slow-API comparison: ${JSON.stringify(slow)}`);
      assert.equal(row[5], 'regressed', row.join(' | '));
    }
    // B the faster run: the same rows the other way round
    const back = table(lotus, testid, 'Response times');
    for (const [label, , , delta, times, v] of back) {
      assert.match(delta, /^-\d/, `${label}: Δ % negative`);
      assert.ok(Number(times.replace(/x$/, '')) > 1, `${label}: times better ${times} > 1`);
      assert.equal(v, 'improved', label);
    }
  } finally {
    for (const d of [lotus, `compare-${testid}-vs-${lotus}`, `compare-${lotus}-vs-${testid}`]) rmSync(join(repo, 'results', d), { recursive: true, force: true });
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
  assert.equal(mdTable(text, 'Response times').rows.length, 1);
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
  await t.test('compare of two workflows', () => {
    const other = join(repo, 'results', `${testid}-search`);
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'summary.json'), JSON.stringify({ ...summary, meta: { ...summary.meta, workflow: 'search', testid: `${testid}-search` } }));
    assert.match(oneLine(cli(['compare', testid, `${testid}-search`])), /same workflow/);
    assert.ok(!existsSync(join(repo, 'results', `compare-${testid}-vs-${testid}-search`)));
    rmSync(other, { recursive: true });
  });
});
