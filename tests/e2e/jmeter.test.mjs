// The JMeter harness end to end: PTF's own Orchid CICO plan (tools/jmeter/ptf), run unchanged but
// for its scheme and port by Apache JMeter 5.6.3 through tools/jmeter/run.mjs, against minifolio
// on the test stack. A client written by FOLIO's performance team must pass its own assertions
// here, and the harness must keep every request on this machine. JMeter's start (the JVM, Groovy's
// first script) takes 10-20 s on a busy 2-core machine, hence a 40 s run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, env, bin, run, sql, ownMinifolioPort } from './helpers.mjs';
import { writePtfCicoData, removeCredentials } from '../../tools/jmeter/ptf-cico-data.mjs';
import { parseJtl } from '../../tools/jmeter/plan.mjs';

const tenant = 'fpjmeter';
const tmp = mkdtempSync(join(tmpdir(), 'fp-jmeter-'));
const runDir = join(tmp, 'minifolio');
const data = join(tmp, 'data');
const plan = join(repo, 'tools', 'jmeter', 'ptf', 'check-in-check-out', 'circulation_checkInCheckOut_orchid.jmx');
// Its own minifolio, apart from the stack's (which a run left up) and the contract suite's.
const port = () => String(ownMinifolioPort(2));
const dbEnv = () => ({ MINIFOLIO_DB: env('FP_PG_DSN') });
// JMeter's timer.factor for the CICO run: a floor on each iteration's time (see the test).
const THINK_FACTOR = 0.01;

function harness(args, timeoutMs = 240_000) {
  const r = run('node', [join(repo, 'tools', 'jmeter', 'run.mjs'), plan, '--data', data, ...args], { env: { FP_MINIFOLIO_PORT: port() }, timeoutMs });
  return { ...r, out: r.stdout + r.stderr };
}

before(() => {
  // Every iteration of PTF's plan reads the next line of each list (check-out or check-in alike),
  // and an item checked out on the first pass through available.csv may still be out when the list
  // comes round again (its check-in line fell on a check-out iteration): a second check-out of it is
  // refused (422). So the run must stay within available.csv (half the items, less the lag), which
  // the think time below guarantees whatever the machine's speed (422 on an idle CI machine with
  // no think time and 300 items).
  const seed = run(bin('minifolio'), ['seed', '--force', '--quiet', '--tenant', tenant, '--items', '3000', '--users', '1000'], { env: dbEnv(), timeoutMs: 180_000 });
  assert.equal(seed.status, 0, seed.stdout + seed.stderr);
  const up = run(bin('minifolio'), ['up', '--port', port(), '--run-dir', runDir, '--profile', 'fast'], { env: dbEnv(), timeoutMs: 120_000 });
  assert.equal(up.status, 0, up.stdout + up.stderr);
  writePtfCicoData({ dir: data, dsn: env('FP_PG_DSN'), tenant, operator: 'folio_admin', password: 'admin' });
});

after(() => {
  removeCredentials(data);
  run(bin('minifolio'), ['down', '--run-dir', runDir], { env: dbEnv() });
  run(bin('minifolio'), ['drop', '--tenant', tenant], { env: dbEnv() });
});

test('the credentials file is readable by its owner only', () => {
  assert.equal(statSync(join(data, 'jmeter-supported-data', 'credentials.csv')).mode & 0o777, 0o600);
});

test("PTF's CICO plan passes its own assertions against minifolio: check-outs and check-ins, no failed sample", () => {
  const out = join(tmp, 'run');
  // Think time at 1 % of PTF's: a check-out waits at least 4 timers (8 s in all, 80 ms here), a
  // check-in 6 (18 s), so 2 users make at most 2 x (40 s / 80 ms + 1) = 1,002 iterations in 40 s,
  // fewer than available.csv's 1,450 items (3,000 seeded, half at the home service point).
  const r = harness(['--out', out, '-JHOSTNAME=127.0.0.1', '-JVUSERS=2', '-JDURATION=40', `-Jtimer.factor=${THINK_FACTOR}`]);
  assert.equal(r.status, 0, r.out);
  const rows = parseJtl(readFileSync(join(out, 'results.jtl'), 'utf8'));
  const failed = rows.filter((x) => !x.ok);
  assert.deepEqual(failed.slice(0, 3).map((x) => `${x.label} ${x.code} ${x.message}`), [], 'failed samples');
  const count = (label) => rows.filter((x) => x.label === label).length;
  assert.ok(count('Check-Out Controller') > 0 && count('Check-In Controller') > 0, r.out);
  const lines = readFileSync(join(data, 'jmeter-supported-data', 'available.csv'), 'utf8').trim().split('\n').length;
  const iterations = count('Check-Out Controller') + count('Check-In Controller');
  assert.ok(iterations < lines, `${iterations} iterations went round available.csv (${lines} items): seed more items or raise the think time`);
  assert.match(r.out, /transaction Check-Out Controller: [1-9]\d*, failed 0/);
  // The check-outs are real: the tenant holds the loans they made, each returned or still open.
  const loans = Number(sql(`select count(*) from ${tenant}_mod_circulation_storage.loan`));
  assert.ok(loans >= count('POST_circulation/check-out-by-barcode (Submit_barcode_checkout)'), `${loans} loans`);
  // The working copy differs from PTF's plan in the scheme and port of one element only.
  const copy = readFileSync(join(out, 'plan', 'circulation_checkInCheckOut_orchid.jmx'), 'utf8').split('\n');
  const orig = readFileSync(plan, 'utf8').split('\n');
  assert.equal(copy.filter((l, i) => l !== orig[i]).length, 2);
  assert.ok(!existsSync(join(out, '.secret.properties')));
});

test('a host other than the loopback target is refused by the harness, not reached (exit 3)', () => {
  // .invalid never resolves: were the guard not there, the request would still go nowhere.
  const r = harness(['--out', join(tmp, 'guard'), '-JHOSTNAME=folio.invalid', '-JVUSERS=1', '-JDURATION=3', '-Jtimer.factor=0']);
  assert.equal(r.status, 3, r.out);
  assert.match(r.out, /requests to hosts other than http:\/\/127\.0\.0\.1:\d+, refused \(first: http:\/\/folio\.invalid:\d+\/authn\/login\)/);
});

test('a target off this machine and bad arguments stop before JMeter starts, with the fix', () => {
  let r = harness(['--target', 'http://10.0.0.1:9130'], 30_000);
  assert.equal(r.status, 1);
  assert.match(r.out, /^folio-perf jmeter: target http:\/\/10\.0\.0\.1:9130 is not on this machine; fix: /m);
  r = harness(['-JVUSERS'], 30_000);
  assert.equal(r.status, 1);
  assert.match(r.out, /fix: write -Jname=value/);
  assert.doesNotMatch(r.out, /at .*\.mjs:\d+/, 'no stack trace');
  r = harness(['--secret', 'password=FP_UNSET_SECRET_VAR'], 30_000);
  assert.equal(r.status, 1);
  assert.match(r.out, /FP_UNSET_SECRET_VAR is not set; fix: export FP_UNSET_SECRET_VAR/);
});
