// Contract test: every answer of the check-in/check-out sequence, as lib/ sends it, validated
// against the JSON schema the answering FOLIO module publishes (minifolio/contract/schemas/, copied
// from the modules' repositories at their release tags by tools/contract-schemas.mjs; their sources
// are in minifolio/contract/SOURCES), once per release minifolio's profiles play: the default
// profile (Orchid module versions) against Orchid's schemas, lotus against Lotus's. minifolio runs
// from bin/ on the test stack's PostgreSQL, on its own tenant and ports.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, bin, run, waitFor, ownMinifolioPort } from './helpers.mjs';
import { checkOut, checkIn } from '../../lib/cico/transactions.js';
import { CICO_API_NAMES } from '../../lib/cico/api.js';
import { contract } from '../../minifolio/contract/validate.mjs';
import { CONTRACT_RELEASES, CONTRACT_UNCOVERED } from '../../minifolio/contract/endpoints.mjs';

const tenant = 'fpcontract';
const servicePointId = '7068e104-aa14-4f30-a8bf-71f71cc15e07'; // the seed's Circ Desk 1
const tmp = mkdtempSync(join(tmpdir(), 'fp-contract-'));
const runDir = join(tmp, 'run');
const port = () => ownMinifolioPort(1); // apart from the stack's own minifolio
const base = () => `http://127.0.0.1:${port()}`;
const dbEnv = () => ({ MINIFOLIO_DB: env('FP_PG_DSN') });

// One HTTP exchange through curl, synchronously (lib/cico/transactions.js drives a synchronous client,
// as k6 does). Returns { status, body, headers } with the header block as sent.
function http(method, url, { headers = {}, body = null } = {}) {
  const bodyFile = join(tmp, 'body');
  const headFile = join(tmp, 'head');
  const args = ['-sS', '-X', method, '-o', bodyFile, '-D', headFile, '-w', '%{http_code}', '--max-time', '60'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  if (body !== null) args.push('--data-binary', body);
  args.push(url);
  const status = Number(execFileSync('curl', args, { encoding: 'utf8' }));
  return { status, body: readFileSync(bodyFile, 'utf8'), headers: readFileSync(headFile, 'utf8') };
}

// Where FOLIO's own module departs from its published schema, minifolio follows the module's code:
// mod-circulation (v23.0.1 of Lotus, v23.5.6 of Orchid) writes callNumberComponents into the check-in answer's item
// (ItemSummaryRepresentation, shared with loans), which check-in-by-barcode-response.json does not
// list among the item's properties.
function folioOwnDeviation(name, problem) {
  return name === 'POST /circulation/check-in-by-barcode' && problem === '/item must NOT have additional properties: callNumberComponents';
}

// The client lib/cico/transactions.js expects, recording every answer and its validation in seen.
function client(token, checker, seen) {
  return {
    call(req) {
      const headers = { 'X-Okapi-Tenant': tenant, 'X-Okapi-Token': token, Accept: req.accept || 'application/json, text/plain' };
      if (req.body !== null) headers['Content-Type'] = 'application/json';
      const res = http(req.method, base() + req.url, { headers, body: req.body });
      seen.push({ name: req.name, status: res.status, body: res.body, problems: checker.validate(req.name, res.status, res.body) });
      const v = req.verify(res.status, res.body);
      return { ok: v.ok, durationMs: 0, value: v.value, status: res.status };
    },
    think() {},
  };
}

before(() => {
  const seed = run(bin('minifolio'), ['seed', '--force', '--quiet', '--tenant', tenant, '--items', '40', '--users', '10', '--loans', '5'], { env: dbEnv(), timeoutMs: 180_000 });
  assert.equal(seed.status, 0, seed.stdout + seed.stderr);
});

after(() => {
  run(bin('minifolio'), ['down', '--run-dir', runDir], { env: dbEnv() });
  run(bin('minifolio'), ['drop', '--tenant', tenant], { env: dbEnv() });
  rmSync(tmp, { recursive: true, force: true });
});

CONTRACT_RELEASES.forEach(({ release, profile }, i) => {
  test(`${release} (profile ${profile}): login, check-out, check-in of that loan and of a seeded loan, every answer valid against its module's ${release} schema`, async () => {
    const checker = contract(release);
    // Every schema and its references compile (a missing file fails here, not mid-run).
    for (const e of checker.endpoints.values()) assert.ok(checker.validate(e.name, e.status, 'null').length > 0, `${e.name} ${e.status}`);
    const up = run(bin('minifolio'), ['up', '--port', String(port()), '--run-dir', runDir, '--profile', profile], { env: dbEnv(), timeoutMs: 120_000 });
    assert.equal(up.status, 0, up.stdout + up.stderr);
    const seen = [];
    try {
      const login = await waitFor(() => {
        const r = http('POST', `${base()}/authn/login`, {
          headers: { 'X-Okapi-Tenant': tenant, 'Content-Type': 'application/json' },
          body: JSON.stringify({ username: 'folio_admin', password: 'admin' }),
        });
        return r.status === 201 ? r : null;
      }, { seconds: 30, what: 'a 201 from /authn/login' });
      seen.push({ name: 'POST /authn/login', status: 201, body: login.body, problems: checker.validate('POST /authn/login', 201, login.body) });
      const token = /\r\nx-okapi-token: (.*)\r\n/.exec(login.headers)[1];

      // Items of their own per release: itm0000000-4 are the seeded loans.
      const now = () => new Date().toISOString();
      const item = `itm00000${20 + i}`;
      const c = client(token, checker, seen);
      const out = checkOut(c, { userBarcode: 'usr0000001', itemBarcode: item, servicePointId, now });
      assert.equal(out.ok, true, `check-out failed at ${out.failedAt}`);
      const inOwn = checkIn(c, { itemBarcode: item, servicePointId, now });
      assert.equal(inOwn.ok, true, `check-in failed at ${inOwn.failedAt}`);
      assert.equal(inOwn.hadLoan, true);
      const inSeeded = checkIn(c, { itemBarcode: `itm000000${1 + i}`, servicePointId, now });
      assert.equal(inSeeded.ok, true, `check-in of a seeded loan failed at ${inSeeded.failedAt}`);
      // FOLIO's 422s: a patron with a manual block, an item already on loan (another seeded loan).
      const blocked = checkOut(c, { userBarcode: 'blocked0000', itemBarcode: `itm00000${30 + i}`, servicePointId, now });
      assert.equal(blocked.failedAt, 'POST /circulation/check-out-by-barcode');
      const onLoan = checkOut(c, { userBarcode: 'usr0000002', itemBarcode: `itm000000${3 + i}`, servicePointId, now });
      assert.equal(onLoan.failedAt, 'POST /circulation/check-out-by-barcode');
    } finally {
      run(bin('minifolio'), ['down', '--run-dir', runDir], { env: dbEnv() });
    }

    const invalid = seen.filter((s) => s.problems && s.problems.filter((p) => !folioOwnDeviation(s.name, p)).length);
    assert.deepEqual(
      invalid.map((s) => `${s.name} ${s.status}: ${s.problems.join('; ')}`),
      [],
      `answers that break their module's published ${release} schema`,
    );
    // Every endpoint of the sequence was answered and validated (mod-notes publishes no JSON schema).
    const validated = new Set(seen.filter((s) => s.problems).map((s) => `${s.name} ${s.status}`));
    for (const e of checker.endpoints.values()) assert.ok(validated.has(`${e.name} ${e.status}`), `${e.name} was not answered with ${e.status}`);
    for (const name of CICO_API_NAMES) assert.ok(CONTRACT_UNCOVERED.includes(name) || [...validated].some((v) => v.startsWith(name + ' ')), `${name} has no schema`);
    const errors = seen.filter((s) => s.status === 422).map((s) => JSON.parse(s.body).errors.map((e) => e.code || e.message));
    assert.equal(errors.length, 2, 'two refused check-outs');

    // The validator rejects what a schema forbids: a real answer, broken on purpose.
    const loan = seen.find((s) => s.name === 'POST /circulation/check-out-by-barcode' && s.status === 201);
    const doc = JSON.parse(loan.body);
    delete doc.itemId;
    const problems = checker.validate('POST /circulation/check-out-by-barcode', 201, JSON.stringify(doc));
    assert.ok(problems.some((p) => p.includes("required property 'itemId'")), problems.join('; '));
    const items = seen.find((s) => s.name === 'GET /inventory/items');
    const page = JSON.parse(items.body);
    page.items[0].permanentLocationId = page.items[0].permanentLocation?.id ?? 'x';
    assert.ok(checker.validate('GET /inventory/items', 200, JSON.stringify(page)).some((p) => p.includes('permanentLocationId')), "mod-inventory's item.json forbids permanentLocationId");
  });
});
