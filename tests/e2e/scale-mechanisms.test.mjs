// The missing-index profile at scale, by its mechanism, on a small tenant: what makes the unindexed
// loan lookup the top statement of a PTF-size database (a loan table holding years of closed loans,
// scanned whole by every lookup by patron) shows already with 20,000 closed loans. The tenant is
// seeded with closed loans of the past (`minifolio seed --closed-loans`, as the 1m and ptf scales
// seed them), a short CICO run under missing-index follows, then its report. Checked within the
// run, never against a time: every lookup by patron (userId, the index the profile drops) reads
// every page of the loan table (pg_stat_statements' blocks per call), the lookup by item (itemId,
// indexed) a handful; the lookup by patron is the report's first statement by total time and costs
// at least 50 times the lookup by item per call (with the run's few hundred loans alone it costs a
// few times as much); PostgreSQL plans it as a Seq Scan; reset kept the closed loans. The figures at a million instances are in docs/scale.md (a benchmark).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repo, env, bin, run, mdTable, sql, folioPerf as cli } from './helpers.mjs';

const tenant = 'fs09000000';
const testid = `e2e-scale-mech-${Date.now()}`;
const dir = join(repo, 'results', testid);
const CLOSED_LOANS = 20000;
let md;
let statements;
let blocks; // pg_stat_statements' shared blocks per statement over the run: { queryid: { calls, blks } }

const minifolio = (args) => run(bin('minifolio'), args, { env: { MINIFOLIO_DB: env('FP_PG_DSN') }, timeoutMs: 180_000 });

before(() => {
  const blockCounts = () => new Map(JSON.parse(sql(`SELECT coalesce(json_agg(json_build_array(queryid::text, calls, shared_blks_hit + shared_blks_read)), '[]')
    FROM pg_stat_statements WHERE query LIKE 'SELECT jsonb FROM ${tenant}_mod_circulation_storage.loan WHERE%'`)).map(([q, c, b]) => [q, { calls: c, blks: b }]));
  const seed = minifolio(['seed', '--force', '--quiet', '--tenant', tenant, '--items', '3000', '--users', '100', '--loans', '100',
    '--closed-loans', String(CLOSED_LOANS)]);
  assert.equal(seed.status, 0, seed.stdout + seed.stderr);
  const blocksBefore = blockCounts();
  const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], {
    env: { PROFILE: 'smoke', VUS: '2', DURATION: '30s', MINIFOLIO_PROFILE: 'missing-index', TESTID: testid },
    timeoutMs: 300_000,
  });
  // 99: thresholds crossed, which the scan may well make GET /circulation/loans do
  assert.ok([0, 99].includes(r.status), r.stdout + r.stderr);
  blocks = new Map([...blockCounts()].map(([q, v]) => [q, { calls: v.calls - (blocksBefore.get(q)?.calls ?? 0), blks: v.blks - (blocksBefore.get(q)?.blks ?? 0) }]));
  const rep = cli(['report', testid]);
  assert.equal(rep.status, 0, rep.stdout + rep.stderr);
  md = readFileSync(join(dir, 'report.md'), 'utf8');
  // the run's statements: the end snapshot less the start one, per statement
  const [a, b] = ['start', 'end'].map((w) => JSON.parse(readFileSync(join(dir, `pg-statements-${w}.json`), 'utf8')));
  const before = new Map(a.map((s) => [s.queryid, s]));
  statements = b.map((s) => {
    const p = before.get(s.queryid);
    return { ...s, calls: s.calls - (p?.calls ?? 0), total_ms: s.total_ms - (p?.total_ms ?? 0) };
  }).filter((s) => s.calls > 0);
});

// The other suites seed their own, smaller tenant: this one, with its closed loans, goes.
after(() => {
  minifolio(['drop', '--tenant', tenant]);
  rmSync(dir, { recursive: true, force: true });
});

// The CICO lookups of a loan by patron (userId==X and status.name<>Closed: the index the profile
// drops) and by item (itemId==X and status.name==Open: indexed), as RMB's SQL for them reads.
const loanLookup = (op) => new RegExp(`^SELECT jsonb FROM ${tenant}_mod_circulation_storage\\.loan WHERE \\(lower\\(public\\.f_unaccent\\(jsonb->>\\$\\d+\\)\\) = ` +
  `lower\\(public\\.f_unaccent\\(\\$\\d+\\)\\) AND lower\\(public\\.f_unaccent\\(jsonb->\\$\\d+->>\\$\\d+\\)\\) ${op} `);

test('reset kept the seeded past: the loan table holds its 20,000 closed loans', () => {
  const n = Number(sql(`SELECT count(*) FROM ${tenant}_mod_circulation_storage.loan WHERE jsonb->'status'->>'name' = 'Closed'
    AND jsonb->'metadata'->>'createdByUserId' <> (SELECT id::text FROM ${tenant}_mod_users.users WHERE jsonb->>'username' = 'folio_admin')`));
  assert.ok(n >= CLOSED_LOANS, `${n} closed loans`);
});

test('each lookup by patron reads the whole loan table; a lookup by item reads a handful of its pages', () => {
  const pages = Number(sql(`SELECT relpages FROM pg_class WHERE oid = '${tenant}_mod_circulation_storage.loan'::regclass`));
  assert.ok(pages > 100, `${pages} pages`);
  const perCall = (op) => {
    const s = statements.find((x) => loanLookup(op).test(x.query));
    const b = blocks.get(s.queryid);
    assert.ok(b && b.calls > 0, `${op}: no blocks counted`);
    return b.blks / b.calls;
  };
  const [byPatron, byItem] = [perCall('<>'), perCall('=')];
  console.log(`blocks read per call: lookup by patron ${byPatron.toFixed(0)}, by item ${byItem.toFixed(1)}; the loan table has ${pages} pages`);
  assert.ok(byPatron >= pages, `by patron ${byPatron} blocks per call, the table ${pages}`);
  assert.ok(byItem < pages / 100, `by item ${byItem} blocks per call, the table ${pages}`);
});

test('the unindexed lookup by patron is the first statement by total time, at least 50x the indexed lookup by item per call', () => {
  const byPatron = statements.filter((s) => loanLookup('<>').test(s.query));
  const byItem = statements.filter((s) => loanLookup('=').test(s.query));
  assert.equal(byPatron.length, 1, 'one statement looks loans up by patron');
  assert.equal(byItem.length, 1, 'one statement looks loans up by item');
  const mean = (s) => s.total_ms / s.calls;
  const ratio = mean(byPatron[0]) / mean(byItem[0]);
  console.log(`loan lookup by patron (unindexed): ${byPatron[0].calls} calls, ${mean(byPatron[0]).toFixed(2)} ms each; ` +
    `by item (indexed): ${byItem[0].calls} calls, ${mean(byItem[0]).toFixed(3)} ms each; ratio ${ratio.toFixed(0)}x`);
  assert.ok(ratio >= 50, `by patron ${mean(byPatron[0])} ms, by item ${mean(byItem[0])} ms per call`);
  // The report's first row by total time is this statement: its text (whitespace collapsed, cut
  // short with "…": both lookups start alike) the start of the lookup's, its calls and total time
  // the lookup's. The row's first cell is its rank.
  const { rows } = mdTable(md, 'Top 10 statements by total time');
  const [rank, text, calls, total] = rows[0];
  assert.equal(rank, '1', rows[0].join(' | '));
  assert.ok(byPatron[0].query.replace(/\s+/g, ' ').startsWith(text.replace(/…$/, '')), `first by total time: ${rows[0].join(' | ')}`);
  assert.equal(Number(calls), byPatron[0].calls, rows[0].join(' | '));
  assert.ok(Math.abs(Number(total) - byPatron[0].total_ms) < 0.1, `${rows[0].join(' | ')} vs ${byPatron[0].total_ms} ms`);
});

test('PostgreSQL scans the whole loan table for the lookup by patron (the index is gone)', () => {
  const plan = sql(`EXPLAIN SELECT jsonb FROM ${tenant}_mod_circulation_storage.loan WHERE lower(public.f_unaccent(jsonb->>'userId')) = lower(public.f_unaccent('x'))
    AND lower(public.f_unaccent(jsonb->'status'->>'name')) <> lower(public.f_unaccent('Closed'))`);
  assert.match(plan, /Seq Scan on loan/);
});
