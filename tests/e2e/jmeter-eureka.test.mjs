// Clients FOLIO's performance team wrote for Eureka, run unchanged (but for their port: the
// harness's TLS front of minifolio, --tls) by Apache JMeter through tools/jmeter/run.mjs against
// minifolio's sunflower profile: Kong, a sidecar per module, tokens from the stack's Keycloak. Both
// plans log in with login-with-expiry, take the tokens from the Set-Cookie headers by regular
// expression and send the access token as a cookie they set themselves.
// - mod-search.jmx (perf-testing branch mod-search-script): login, PTF's search templates, and its
//   refresh thread (POST /authn/refresh when less than 50 s are left, here with 60-second tokens):
//   every sample passes.
// - vega_Congressional_Loan.jmx (PERF-1063, ECS): credentials from PTF's data service (a stand-in
//   here, on loopback), login, /bl-users/_self, then the mediated-request flow of a consortium.
//   The login part and every call minifolio serves pass; what fails is exactly what minifolio lacks
//   (LACKS below: the consortium, mediated requests, circulation-bff, some reference data).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, env, bin, run, runAsync, childEnv, sql } from './helpers.mjs';
import { writePtfSearchData, removeSearchCredentials } from '../../tools/jmeter/ptf-search-data.mjs';
import { parseJtl } from '../../tools/jmeter/plan.mjs';
import { setting } from '../../tools/defaults.mjs';

const tenant = 'fpjmeur';
const tmp = mkdtempSync(join(tmpdir(), 'fp-jmeter-eureka-'));
const runDir = join(tmp, 'minifolio');
const port = () => env('FP_MINIFOLIO_PORT');
const target = () => `http://127.0.0.1:${port()}`;
const dbEnv = () => ({ MINIFOLIO_DB: env('FP_PG_DSN'), FP_KEYCLOAK_ADMIN_PASSWORD: setting('FP_KEYCLOAK_ADMIN_PASSWORD') });
const plans = join(repo, 'tools', 'jmeter', 'ptf');

// The harness as a child that does not block this process (the data-service stand-in answers in it).
async function harness(plan, data, out, props) {
  // --tls: the plans keep their https, so the Secure cookies their login sets travel as on a real FOLIO.
  const r = await runAsync('node', [join(repo, 'tools', 'jmeter', 'run.mjs'), plan, '--tls', '--data', data, '--out', out, '--target', target(), ...props], {
    env: childEnv({ FP_MINIFOLIO_PORT: port() }),
    timeoutMs: 420_000,
  });
  const rows = parseJtl(readFileSync(join(out, 'results.jtl'), 'utf8'));
  return { ...r, out: r.stdout + r.stderr, rows };
}

before(() => {
  // The stack's minifolio (a run's) makes way for a Eureka one with 60-second tokens on its port.
  run(bin('minifolio'), ['down', '--run-dir', join(env('FP_STACK_DIR'), 'minifolio')], { env: dbEnv() });
  const seed = run(bin('minifolio'), ['seed', '--force', '--quiet', '--tenant', tenant, '--items', '1000', '--users', '20', '--authorities', '300'], { env: dbEnv(), timeoutMs: 180_000 });
  assert.equal(seed.status, 0, seed.stdout + seed.stderr);
  const up = run(bin('minifolio'), ['up', '--run-dir', runDir, '--port', port(), '--profile', 'sunflower', '--token-ttl', '60s',
    '--keycloak', `http://127.0.0.1:${env('FP_KEYCLOAK_PORT')}`, '--opensearch', env('FP_OPENSEARCH_URL')], { env: dbEnv(), timeoutMs: 180_000 });
  assert.equal(up.status, 0, up.stdout + up.stderr);
  // The first login sets the tenant's realm up; then mod-search indexes the tenant.
  const ix = run('node', [join(repo, 'tools', 'search-index.mjs'), '--url', target(), '--tenant', tenant, '--timeout', '600'], { env: { FOLIO_PASSWORD: 'admin' }, timeoutMs: 700_000 });
  assert.equal(ix.status, 0, ix.stdout + ix.stderr);
});

after(() => {
  run(bin('minifolio'), ['down', '--run-dir', runDir], { env: dbEnv() });
  run(bin('minifolio'), ['drop', '--tenant', tenant], { env: dbEnv() });
});

test("PTF's Eureka mod-search plan, unchanged: cookie login, every template, token refreshes; no failed sample", async () => {
  const data = join(tmp, 'search-data');
  writePtfSearchData({ dir: data, source: join(repo, 'data', 'search'), tenant, operator: 'folio_admin', password: 'admin' });
  const out = join(tmp, 'search-run');
  let r;
  try {
    r = await harness(join(plans, 'mod-search', 'mod-search.jmx'), data, out, ['-Jtotal_tenants=1', '-JGlobal_duration=75', '-JMSF_vusers=1']);
  } finally {
    removeSearchCredentials(data);
  }
  assert.equal(r.status, 0, r.out.slice(-3000));
  const failed = r.rows.filter((x) => !x.ok);
  assert.deepEqual(failed.slice(0, 5).map((x) => `${x.label} ${x.code} ${x.message}`), [], 'failed samples');
  const n = (label) => r.rows.filter((x) => x.label === label).length;
  assert.equal(n('FOLIO: Login'), 1);
  assert.equal(n('GET bl-users/_self'), 1);
  assert.ok(n('MSF_GET /search/authorities keyword all randomword') > 0 && n('MSF_GET /search/instances: title all 3 word sentence') > 0, 'templates of both indexes ran');
  // 60-second tokens: the plan's refresh thread (less than 50 s left, checked every 30 s) refreshed.
  assert.ok(n('POST /authn/refresh') >= 1, `refreshes: ${n('POST /authn/refresh')}`);
  // The login thread wrote the user it read from /bl-users/_self (id and default service point).
  const users = readFileSync(join(data, 'jmeter-supported-data', 'UsersInfo.csv'), 'utf8').trim().split(',');
  assert.match(users[0], /^[0-9a-f]{8}-[0-9a-f-]{27}$/);
});

// What minifolio lacks for the Congressional-loan flow, by path: a consortium (mod-consortia), mediated
// requests (mod-requests-mediated), circulation-bff, and reference data of modules it does not
// play (address types, note types, tags, cancellation reasons, request preferences) and
// mod-circulation's hold-shelf clearance report. Any other failed sample is a defect.
const LACKS = [
  /^\/consortia/, /^\/circulation-bff\//, /^\/requests-mediated\//, /^\/addresstypes/, /^\/note-types/, /^\/tags/,
  /^\/cancellation-reason-storage\//, /^\/request-preference-storage\//, /^\/circulation\/requests-reports\//,
];

test("PTF's Eureka ECS plan (Congressional loan), unchanged: the login with cookies and every call minifolio serves pass; only the consortium's calls fail", async () => {
  // PTF's data service (DMS) hands each tenant's credentials to the plan: a stand-in on loopback.
  const creds = { username: 'folio_admin', password: 'admin', tenant, hostName: '127.0.0.1', origin: '127.0.0.1', API_KEY: '' };
  const asked = [];
  const dms = createServer((req, res) => {
    asked.push(req.url);
    const ok = req.url === `/relc/${tenant}/tenants_credentials`;
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
    res.end(ok ? JSON.stringify(creds) : '{}');
  });
  await new Promise((ok) => dms.listen(0, '127.0.0.1', ok));
  const data = join(tmp, 'cl-data', 'jmeter-supported-data');
  run('mkdir', ['-p', data]);
  // A line per iteration (the plan's CSV does not recycle): a patron and an item of the tenant.
  const items = sql(`select i.jsonb->>'barcode', i.id, i.jsonb->>'holdingsRecordId', h.jsonb->>'instanceId' from ${tenant}_mod_inventory_storage.item i join ${tenant}_mod_inventory_storage.holdings_record h on h.id::text = i.jsonb->>'holdingsRecordId' order by 1 limit 200`).split('\n');
  const users = sql(`select jsonb->>'barcode', id from ${tenant}_mod_users.users where jsonb->>'barcode' like 'usr%' order by 1 limit 200`).split('\n');
  const lines = items.map((it, i) => {
    const [ib, iid, hid, inst] = it.split('|');
    const [ub, uid] = users[i % users.length].split('|');
    return `${ub},${uid},${inst},${hid},${ib},${iid}\n`;
  });
  writeFileSync(join(data, 'CL_ItemsInfo.csv'), lines.join(''));
  writeFileSync(join(data, 'UsersInfo.csv'), '');
  const out = join(tmp, 'cl-run');
  let r;
  try {
    r = await harness(join(plans, 'congressional-loan', 'vega_Congressional_Loan.jmx'), join(tmp, 'cl-data'), out, [
      `-Jtenants=${tenant}`, '-Jtotal_tenants=1', `-Jcentral_tenant=${tenant}`, '-Jdms=127.0.0.1', `-Jdms_port=${dms.address().port}`, '-Jenv_type=relc',
      `-JX-Okapi-Tenant_secure=${tenant}`, `-JX-Okapi-Tenant_member=${tenant}`, `-JX-Okapi-Tenant_central=${tenant}`, '-JCL_VUSERS=1', '-JGlobal_duration=40', '-Jtimer.factor=0',
    ]);
  } finally {
    await new Promise((ok) => dms.close(ok));
  }
  assert.ok(asked.includes(`/relc/${tenant}/tenants_credentials`), `the plan asked the data service: ${asked}`);
  const byLabel = (re) => r.rows.filter((x) => re.test(x.label));
  for (const label of [/^DMS_data: Credentials$/, /^FOLIO: Login /, /^GET bl-users\/_self$/, /^CL_GET users-keycloak$/, /^CL_GET configurations\/entries$/, /^CL_GET entitlements\//, /^CL_GET version$/, /^CL_GET settings\/entries$/, /^CL_GET groups$/]) {
    const rows = byLabel(label);
    assert.ok(rows.length > 0, `${label} sampled`);
    assert.deepEqual(rows.filter((x) => !x.ok).map((x) => `${x.label} ${x.code} ${x.message}`), [], `${label} passes`);
  }
  // What fails is what minifolio lacks: a request to a path it serves never does.
  const failed = r.rows.filter((x) => !x.ok && /^https?:\/\//.test(x.url));
  const path = (u) => new URL(u).pathname;
  const unexpected = [...new Set(failed.filter((x) => !LACKS.some((re) => re.test(path(x.url)))).map((x) => `${x.label} ${x.code} ${path(x.url)}`))];
  assert.deepEqual(unexpected, [], 'failed on paths minifolio serves');
  assert.ok(failed.length > 0, 'the consortium flow reached what minifolio lacks');
});
