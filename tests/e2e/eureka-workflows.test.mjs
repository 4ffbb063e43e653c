// Both workflows against minifolio on both platforms: lotus (Okapi), sunflower and trillium (Eureka:
// Kong, a sidecar per module, tokens from the test stack's real Keycloak). Only the target changes
// (MINIFOLIO_PROFILE): the run finds the platform, replays the UI release that fits it (Orchid's
// plan, ui-checkout 12 / ui-checkin 11, ui-checkout 13 / ui-checkin 12), carries the token as that
// platform wants it, and picks mod-search's reindex API by its version. Every run goes through
// `folio-perf run`, as `make run` does. The thresholds file keeps the rate budgets at zero and
// drops the timing SLOs: a test never asserts how fast this shared machine is.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, env, bin, influxQuery, run, folioPerfRun } from './helpers.mjs';
import { METRICS as M } from '../../lib/metrics.js';
import { refreshMarginMs } from '../../lib/auth.js';
import { RECORD_PREFIX } from '../../lib/record.js';

const tmp = mkdtempSync(join(tmpdir(), 'fp-eureka-wf-'));
const thFile = join(tmp, 'thresholds.json');

// thresholds.json with every timing SLO dropped and every rate budget at zero: k6 exits 0 only
// when no request, check or transaction failed.
function zeroFailureThresholds() {
  const th = JSON.parse(readFileSync(join(repo, 'thresholds.json'), 'utf8'));
  for (const wf of Object.values(th.workflows)) {
    for (const k of ['transactions', 'apis', 'kinds']) if (wf[k]) wf[k] = {};
    delete wf.regression;
    for (const r of Object.values(wf.rates || {})) {
      if (r.max !== undefined) r.max = 0;
      if (r.min !== undefined) r.min = 1;
    }
  }
  writeFileSync(thFile, JSON.stringify(th));
}

const folioRun = (name, vars, timeoutMs = 900_000) => folioPerfRun(`euwf-${name}`, { PROFILE: 'smoke', THRESHOLDS: thFile, ...vars }, timeoutMs);

const count = (s, key) => s.k6.metrics[key]?.values?.count ?? 0;
const tail = (out) => out.slice(-5000);

// Requests of the run's load answered with this status; setup's record of the run asks the other
// platform's module list too, and its answer (404) is information, named `record ...`.
async function answered(testid, status) {
  const rows = await influxQuery(`SELECT count("value") FROM "http_reqs" WHERE "testid" = '${testid}' AND "status" = '${status}' GROUP BY "name"`);
  return rows.filter((r) => !r.tags.name.startsWith(RECORD_PREFIX)).map((r) => `${r.tags.name}: ${r.values[0][1]}`);
}

before(() => {
  zeroFailureThresholds();
  // A known data set: the CICO tenant and the tenant a search run reindexes, with authorities.
  for (const tenant of ['fs09000000', 'fs09000001']) {
    const r = run(bin('minifolio'), ['seed', '--force', '--quiet', '--tenant', tenant, '--items', '3000', '--users', '40', '--loans', '100', '--authorities', '300'], {
      env: { MINIFOLIO_DB: env('FP_PG_DSN') },
      timeoutMs: 300_000,
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  }
});

const CASES = [
  { profile: 'lotus', platform: 'okapi', ui: 'orchid', only: 'GET /configurations/entries', reindex: 'legacy' },
  { profile: 'sunflower', platform: 'eureka', ui: 'sunflower', only: 'GET /users/configurations/entry', reindex: 'current' },
  { profile: 'trillium', platform: 'eureka', ui: 'trillium', only: 'GET /loan-storage/loans', reindex: 'current' },
];

for (const c of CASES) {
  test(`check-in/check-out on ${c.profile}: ${c.platform}, ${c.ui}'s screens, 0 failed requests`, async () => {
    // Sunflower's run doubles as the token drill: 20-second tokens over two minutes, 2 users.
    const token = c.profile === 'sunflower' ? { TOKEN_TTL: '20s', DURATION: '120s', VUS: '2' } : { DURATION: '30s' };
    const r = folioRun(`cico-${c.profile}`, { MINIFOLIO_PROFILE: c.profile, ...token });
    assert.equal(r.status, 0, tail(r.out));
    const s = r.summary;
    assert.equal(s.meta.platform, c.platform);
    assert.equal(s.meta.uiRelease, c.ui);
    assert.match(r.out, new RegExp(`platform ${c.platform === 'okapi' ? 'Okapi' : 'Eureka'} \\(the target answers as ${c.platform}\\); UI release ${c.ui} `));
    assert.equal(s.k6.metrics[M.httpFailed].values.rate, 0);
    assert.equal(s.checks.fails, 0);
    for (const t of ['check-in', 'check-out']) assert.ok(count(s, `${M.transactionDuration}{transaction:${t}}`) > 0, `${t} transactions`);
    // The release's own calls were sent: the UI release is data, chosen by what the target announced.
    assert.ok(count(s, `${M.httpDuration}{name:${c.only}}`) > 0, `${c.only} sent`);
    assert.deepEqual(await answered(r.testid, '401'), [], '401 answers');
    assert.deepEqual(await answered(r.testid, '404'), [], '404 answers');
    if (c.profile !== 'sunflower') return;
    // Every VU kept its session by refreshing: 2 VUs (and setup's and teardown's sessions) logged
    // in once each, no refresh was refused, and 120 s of 20-second tokens took a refresh per VU
    // every 16 s or so (80 % of the lifetime).
    const refreshes = count(s, M.authRefreshes);
    const every = (20_000 - refreshMarginMs(20_000)) / 1000;
    assert.equal(count(s, M.authLogins), 4, 'one login per VU, setup and teardown');
    assert.equal(count(s, M.authRefreshRefused), 0);
    assert.equal(count(s, M.authUnauthorized), 0);
    assert.ok(refreshes >= 2 * (Math.floor(120 / every) - 2), `${refreshes} refreshes for 2 VUs over 120 s`);
  });
}

for (const c of CASES) {
  test(`mod-search on ${c.profile}: alone and while another tenant reindexes through the ${c.reindex} API, 0 failed requests`, () => {
    const r = folioRun(`search-${c.profile}`, {
      WORKFLOW: 'search', MINIFOLIO_PROFILE: c.profile, DURATION: '15s', WARMUP: '0', REINDEX_TENANT: 'fs09000001', REINDEX_POLL: '1s',
    });
    assert.equal(r.status, 0, tail(r.out));
    const s = r.summary;
    assert.equal(s.meta.platform, c.platform);
    assert.equal(s.meta.reindexApi, c.reindex);
    assert.match(r.out, new RegExp(`reindex API ${c.reindex} \\(mod-search [\\d.]+ ${c.reindex === 'current' ? '>=' : '<'} 4\\.0\\)`));
    assert.match(r.out, new RegExp(`reindex of fs09000001 started \\(${c.reindex} API`));
    assert.equal(s.k6.metrics[M.httpFailed].values.rate, 0);
    assert.equal(s.checks.fails, 0);
    assert.deepEqual(s.meta.emptyIndexes, [], 'both indexes hold records');
    assert.deepEqual(s.tables.searchSteps.map((x) => x.phase), ['baseline', 'reindex']);
  });
}

test('a searched tenant without authorities: the run says at its start that 12 templates time empty answers, and marks their rows', () => {
  // A tenant of its own, without authority records, searched by the run (FP_TENANT names it).
  const seed = run(bin('minifolio'), ['seed', '--force', '--quiet', '--tenant', 'fpnoauth', '--items', '500', '--users', '20', '--authorities', '0'], {
    env: { MINIFOLIO_DB: env('FP_PG_DSN') },
    timeoutMs: 300_000,
  });
  assert.equal(seed.status, 0, seed.stdout + seed.stderr);
  const r = folioRun('search-empty', { WORKFLOW: 'search', MINIFOLIO_PROFILE: 'lotus', FP_TENANT: 'fpnoauth', DURATION: '10s', WARMUP: '0' });
  try {
    assert.equal(r.status, 0, tail(r.out));
    // Said by setup(), before the first user: ahead of its own last line, in k6's log.
    const start = r.stderr.indexOf('tenant fpnoauth has no authority records in its search index');
    assert.ok(start > 0 && start < r.stderr.indexOf('46 templates; query files in'), 'said in setup, before the load');
    assert.match(r.out, /the 12 templates of group authority will time empty answers, not searches; fix: /);
    assert.match(r.out, /Empty index: authority \(\/search\/authorities\) held no records when the run started/);
    assert.match(r.out, /\nGET \/search\/authorities keyword any randomword \* /);
    const s = r.summary;
    assert.deepEqual(s.meta.emptyIndexes, [{ path: '/search/authorities', records: 'authority', groups: ['authority'], templates: 12 }]);
    const rows = s.tables.searchSteps[0].rows;
    assert.equal(rows.filter((x) => x.emptyIndex).length, 12);
    assert.ok(rows.filter((x) => !x.emptyIndex).every((x) => x.group !== 'authority'));
  } finally {
    run(bin('minifolio'), ['drop', '--tenant', 'fpnoauth'], { env: { MINIFOLIO_DB: env('FP_PG_DSN') } });
  }
});
