import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { envFileName, envFileOf, targetEnvName, parseEnvFile, resolveConfig, dbDsn, describeConfig, ConfigError } from '../../lib/config.js';
import { parseDefaults, defaultsLookup } from '../../lib/defaults.js';

const repoFile = (f) => readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');
// env/local.json names its ports, tenant and operator by ${KEY} of defaults.env.
const D = parseDefaults(repoFile('defaults.env'));
const lookup = defaultsLookup({}, repoFile);
const local = parseEnvFile(repoFile('env/local.json'), 'env/local.json', lookup);
const where = { name: 'local', file: 'env/local.json' };
const secrets = { FOLIO_PASSWORD: 'admin-secret', FOLIO_DB_PASSWORD: 'db-secret' };

function message(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected ConfigError, got ${e}`);
    assert.ok(!e.message.includes('\n'), 'one line');
    return e.message;
  }
  assert.fail('no error thrown');
}

test('every committed env file resolves with secrets from the environment', () => {
  for (const name of ['local', 'docker', 'folio.example']) {
    const w = envFileName(name);
    const doc = parseEnvFile(repoFile(w.file), w.file, lookup);
    const cfg = resolveConfig(doc, { ...secrets }, w, { needDb: true });
    assert.equal(cfg.target, name);
    assert.match(cfg.folio.url, /^https?:\/\/[^/]+$/);
  }
});

test('local config: values from the file, environment overrides win', () => {
  const cfg = resolveConfig(local, { ...secrets, FOLIO_URL: 'http://127.0.0.1:9230/', FOLIO_TENANT: 'diku', FOLIO_DB_PORT: '55433', RELEASE: 'lotus' }, where);
  assert.equal(cfg.folio.url, 'http://127.0.0.1:9230', 'trailing slash removed');
  assert.equal(cfg.folio.tenant, 'diku');
  assert.equal(cfg.folio.user, D.FP_USER);
  assert.equal(cfg.folio.password, 'admin-secret');
  assert.equal(cfg.db.port, 55433);
  assert.equal(cfg.release, 'lotus');
  assert.deepEqual(cfg.data, { kind: 'db' });
});

test('FOLIO_ENV defaults to local and cannot leave env/', () => {
  assert.deepEqual(envFileName(undefined), { name: 'local', file: 'env/local.json' });
  assert.match(message(() => envFileName('../etc/passwd')), /FOLIO_ENV .* fix: /);
  assert.deepEqual(envFileOf({ FOLIO_ENV: 'mylib' }), { name: 'mylib', file: 'env/mylib.json', warning: null });
});

// K6_* names are k6's own options: the target's env file is FOLIO_ENV, and the old K6_ENV still
// works, with a warning naming the new name.
test('K6_ENV is read as the old name of FOLIO_ENV, with a warning; both differing is refused', () => {
  const old = envFileOf({ K6_ENV: 'mylib' });
  assert.equal(old.file, 'env/mylib.json');
  assert.match(old.warning, /^K6_ENV is the old name of FOLIO_ENV .*; fix: use FOLIO_ENV=mylib$/);
  assert.deepEqual(targetEnvName({ FOLIO_ENV: 'a', K6_ENV: 'a' }), { name: 'a', warning: null });
  assert.deepEqual(targetEnvName({}), { name: undefined, warning: null });
  assert.match(message(() => targetEnvName({ FOLIO_ENV: 'a', K6_ENV: 'b' })), /^config: K6_ENV "b" disagrees with FOLIO_ENV "a"; fix: unset K6_ENV/);
});

test('messages name the bad field, where it came from, and the fix', () => {
  assert.match(message(() => resolveConfig(local, { ...secrets, FOLIO_URL: 'ftp://x' }, where)), /^config: FOLIO_URL "ftp:\/\/x" is not an http\(s\) URL; fix: /);
  assert.match(message(() => resolveConfig({ ...local, folio: { ...local.folio, url: 'nope' } }, secrets, where)), /^config: folio\.url in env\/local\.json "nope"/);
  assert.match(message(() => resolveConfig(local, { ...secrets, FOLIO_TENANT: 'Bad-Tenant' }, where)), /FOLIO_TENANT "Bad-Tenant" is not a FOLIO tenant id/);
  assert.match(message(() => resolveConfig(local, { FOLIO_DB_PASSWORD: 'x' }, where)), /^config: FOLIO_PASSWORD is not set; fix: export FOLIO_PASSWORD=/);
  assert.match(message(() => resolveConfig(local, { FOLIO_PASSWORD: 'x' }, where)), /FOLIO_DB_PASSWORD is not set; fix: .*DATA=csv/);
  assert.match(message(() => resolveConfig(local, { ...secrets, FOLIO_DB_PORT: '70000' }, where)), /FOLIO_DB_PORT "70000" is not a TCP port/);
  assert.match(message(() => resolveConfig(local, { ...secrets, DATA: 'ldap' }, where)), /DATA "ldap" is not a data source; fix: use DATA=db .* DATA=csv:<dir>/);
  assert.match(message(() => resolveConfig(local, { ...secrets, FOLIO_DB_SSLMODE: 'maybe' }, where)), /sslmode/);
  assert.match(message(() => resolveConfig(local, { ...secrets, CHECKIN_POOL: 'all' }, where)), /^config: CHECKIN_POOL "all" is not a check-in pool; fix: use CHECKIN_POOL=own .* CHECKIN_POOL=any/);
  assert.match(message(() => parseEnvFile('{ "folio": ', 'env/x.json')), /^config: env\/x\.json is not valid JSON/);
});

test('a password in the env file is refused, and never echoed', () => {
  const doc = { ...local, db: { ...local.db, password: 'hunter2' } };
  const m = message(() => resolveConfig(doc, secrets, where));
  assert.match(m, /secret field "db\.password".*FOLIO_DB_PASSWORD/);
  assert.ok(!m.includes('hunter2'));
});

test('CSV data needs no database settings', () => {
  const cfg = resolveConfig({ folio: local.folio }, { FOLIO_PASSWORD: 'x', DATA: 'csv:data/ptf/' }, where);
  assert.equal(cfg.db, null);
  assert.deepEqual(cfg.data, { kind: 'csv', dir: 'data/ptf' });
});

test('DSN encodes the password; the description never shows it', () => {
  const cfg = resolveConfig(local, { FOLIO_PASSWORD: 'p@ss', FOLIO_DB_PASSWORD: 'a b/c@d' }, where);
  assert.equal(dbDsn(cfg.db), `postgres://folio:a%20b%2Fc%40d@127.0.0.1:${D.FP_PG_PORT}/folio?sslmode=disable`);
  const d = describeConfig(cfg);
  assert.ok(!d.includes('a b/c@d') && !d.includes('p@ss'));
  assert.match(d, new RegExp(`tenant=${D.FP_TENANT} `));
});

test('a script without test data (smoke) needs neither DATA nor database settings', () => {
  const cfg = resolveConfig({ folio: local.folio, data: 'nonsense' }, { FOLIO_PASSWORD: 'x' }, where, { noData: true });
  assert.equal(cfg.db, null);
  assert.deepEqual(cfg.data, { kind: 'none' });
  assert.match(describeConfig(cfg), /data=none/);
});

test('the check-in pool defaults to the operator\'s own loans; CHECKIN_POOL=any is PTF\'s every open loan', () => {
  assert.equal(resolveConfig(local, secrets, where).checkinPool, 'own');
  assert.equal(resolveConfig(local, { ...secrets, CHECKIN_POOL: 'any' }, where).checkinPool, 'any');
  assert.equal(resolveConfig({ ...local, checkinPool: 'any' }, secrets, where).checkinPool, 'any');
  assert.match(describeConfig(resolveConfig(local, secrets, where)), / checkin-pool=own\(24h\) /);
});

test('CHECKIN_WINDOW bounds how far back CHECKIN_POOL=own looks: 24 hours unless set', () => {
  assert.equal(resolveConfig(local, secrets, where).checkinWindowMs, 24 * 3600_000);
  assert.equal(resolveConfig(local, { ...secrets, CHECKIN_WINDOW: '720h' }, where).checkinWindowMs, 720 * 3600_000);
  assert.equal(resolveConfig({ ...local, checkinWindow: '2h' }, secrets, where).checkinWindowMs, 2 * 3600_000);
  assert.match(message(() => resolveConfig(local, { ...secrets, CHECKIN_WINDOW: 'a week' }, where)), /^config: CHECKIN_WINDOW "a week" is not a duration; fix: use e\.g\. CHECKIN_WINDOW=24h/);
  assert.match(message(() => resolveConfig(local, { ...secrets, CHECKIN_WINDOW: '0s' }, where)), /CHECKIN_WINDOW "0s" is not a duration/);
});

test('${KEY} in an env file: the environment first, then defaults.env; an unknown name is refused', () => {
  const text = '{"$comment": "${NOT_EXPANDED}", "folio": {"url": "http://127.0.0.1:${FP_MINIFOLIO_PORT}", "tenant": "${FP_TENANT}", "user": "u"}, "db": {"host": "h", "port": "${FP_PG_PORT}", "name": "folio", "user": "folio"}}';
  const fromFile = parseEnvFile(text, 'env/x.json', defaultsLookup({}, repoFile));
  assert.equal(fromFile.folio.url, `http://127.0.0.1:${D.FP_MINIFOLIO_PORT}`);
  assert.equal(fromFile.folio.tenant, D.FP_TENANT);
  assert.equal(fromFile.$comment, '${NOT_EXPANDED}');
  const fromEnv = parseEnvFile(text, 'env/x.json', defaultsLookup({ FP_MINIFOLIO_PORT: '9430' }, repoFile));
  assert.equal(fromEnv.folio.url, 'http://127.0.0.1:9430');
  const cfg = resolveConfig(fromFile, secrets, { name: 'x', file: 'env/x.json' });
  assert.equal(cfg.db.port, Number(D.FP_PG_PORT));
  assert.match(message(() => parseEnvFile('{"folio": {"url": "${NO_SUCH_KEY}"}}', 'env/x.json', defaultsLookup({}, repoFile))), /^config: folio\.url in env\/x\.json names \$\{NO_SUCH_KEY\}, which neither the environment nor defaults\.env sets; fix: set NO_SUCH_KEY/);
  // A file without placeholders never needs defaults.env (e.g. a k6-operator pod's target.json).
  assert.equal(parseEnvFile('{"folio": {"url": "http://x"}}', 'env/y.json', defaultsLookup({}, () => assert.fail('read defaults.env'))).folio.url, 'http://x');
  assert.throws(() => parseDefaults('FP_X=1\nFP Y=2\n'), /defaults\.env:2 is not a KEY=VALUE line/);
});

test('FP_LOCAL_ONLY=1 (tests, drills, demo, gate): a FOLIO or database off this machine is refused by name, in one line', () => {
  const only = { ...secrets, FP_LOCAL_ONLY: '1' };
  for (const url of ['http://127.0.0.1:9130', 'http://127.3.4.5', 'http://localhost:9130/okapi', 'http://[::1]:9130', 'http://u@127.0.0.1:1']) {
    assert.equal(resolveConfig(local, { ...only, FOLIO_URL: url }, where).folio.url, url.replace(/\/$/, ''));
  }
  for (const url of ['https://folio.example.org', 'http://127.0.0.1.example.org', 'http://10.0.0.1:9130', 'http://localhost.example.org', 'http://127.0.0.1@folio.example.org']) {
    const m = message(() => resolveConfig(local, { ...only, FOLIO_URL: url }, where));
    assert.match(m, /^config: FOLIO_URL ".*" is not on this machine; fix: .*FP_LOCAL_ONLY/, url);
  }
  const w = envFileName('folio.example');
  const doc = parseEnvFile(readFileSync(new URL(`../../${w.file}`, import.meta.url), 'utf8'), w.file);
  assert.match(message(() => resolveConfig(doc, only, w)), /^config: folio\.url in env\/folio\.example\.json "https:\/\/okapi\.example\.org" is not on this machine/);
  // the database too, even when this run reads none (k6/x/sql would connect in setup)
  assert.match(message(() => resolveConfig(local, { ...only, FOLIO_DB_HOST: 'db.example.org' }, where, { noData: true })), /^config: FOLIO_DB_HOST "db\.example\.org" is not on this machine/);
  // without FP_LOCAL_ONLY the same settings are a user's own target
  assert.equal(resolveConfig(local, { ...secrets, FOLIO_URL: 'https://folio.example.org', FOLIO_DB_HOST: 'db.example.org' }, where).folio.url, 'https://folio.example.org');
});
