// The allow-list of tools/local-env.allow as tools/local-env.mjs reads it (tools/local-env.sh reads the
// same file; tests/e2e/local-only.test.mjs runs the entry points themselves).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readAllowList, kept, localEnv, remoteAddresses } from '../../tools/local-env.mjs';
import { isLoopbackHost } from '../../lib/loopback.js';

const userShell = {
  PATH: '/usr/bin', HOME: '/root', LANG: 'C.UTF-8', GOCACHE: '/c', SSH_AUTH_SOCK: '/s', EDITOR: 'vi',
  FOLIO_URL: 'https://folio.example.org', FOLIO_PASSWORD: 'x', FOLIO_TENANT: 'diku', FOLIO_USER: 'diku_admin',
  FOLIO_DB_HOST: 'db.example.org', FOLIO_DB_PASSWORD: 'y', FOLIO_ENV: 'folio.example', K6_ENV: 'folio.example', DATA: 'csv:x', CHECKIN_POOL: 'any',
  REINDEX_TENANT: 'diku', REINDEX_REPEAT: 'true', K6_OUT: 'influxdb=http://influx.example.org', K6_INFLUXDB_PASSWORD: 'z',
  BASELINE: 'baselines/x.json', MINIFOLIO_DB: 'postgres://a@db.example.org/x', INFLUX_URL: 'http://influx.example.org',
  FP_TEST_PORT_OFFSET: '700', FP_PG_PORT: '56133', GATE_RUNS: '2', BENCH_VUS: '5', K6_NO_USAGE_REPORT: 'true',
};

test('the target of a real FOLIO is left out and said; the system, toolchains and local stack settings are kept', () => {
  const { env, said } = localEnv(userShell);
  assert.deepEqual(Object.keys(env).sort(), ['BENCH_VUS', 'FP_LOCAL_ONLY', 'FP_PG_PORT', 'FP_TEST_PORT_OFFSET', 'GATE_RUNS', 'GOCACHE', 'HOME', 'K6_NO_USAGE_REPORT', 'LANG', 'PATH']);
  assert.equal(env.FP_LOCAL_ONLY, '1');
  assert.deepEqual(said, ['BASELINE', 'CHECKIN_POOL', 'DATA', 'FOLIO_DB_HOST', 'FOLIO_DB_PASSWORD', 'FOLIO_ENV', 'FOLIO_PASSWORD', 'FOLIO_TENANT', 'FOLIO_URL', 'FOLIO_USER',
    'INFLUX_URL', 'K6_ENV', 'K6_INFLUXDB_PASSWORD', 'K6_OUT', 'MINIFOLIO_DB', 'REINDEX_REPEAT', 'REINDEX_TENANT']);
  // extra goes on top (a test's own run settings)
  assert.equal(localEnv(userShell, { FOLIO_URL: 'http://127.0.0.1:9930' }).env.FOLIO_URL, 'http://127.0.0.1:9930');
});

test('addresses among the kept names (FP_*_URL, FP_*_DSN) must be on this machine; the message never holds a password', () => {
  const list = readAllowList();
  assert.ok(kept('FP_INFLUX_URL', list) && kept('FP_PG_DSN', list));
  assert.deepEqual(remoteAddresses({ FP_INFLUX_URL: 'http://127.0.0.1:58787', FP_PG_DSN: 'postgres://folio:pw@localhost:5432/folio' }), []);
  assert.deepEqual(remoteAddresses({ FP_INFLUX_URL: 'http://influx.example.org:8086', FP_PG_DSN: 'postgres://folio:S3cret@db.example.org:5432/folio' }),
    ['FP_INFLUX_URL (influx.example.org:8086)', 'FP_PG_DSN (db.example.org:5432)']);
});

test('the allow-list parses its own syntax: ! leaves out, @ keeps an address, - is said', () => {
  const list = readAllowList('# c\nA*\n!AB\n@C_URL\n-D*\n');
  assert.ok(kept('AX', list) && !kept('AB', list) && kept('C_URL', list) && !kept('DX', list));
});

test('loopback by name only: 127.0.0.0/8, localhost, ::1, never a name that merely starts so', () => {
  for (const h of ['127.0.0.1', '127.0.0.1:9130', 'localhost', 'LOCALHOST:1', '[::1]:9130', '::1', 'user:pw@127.0.0.1:5432']) assert.ok(isLoopbackHost(h), h);
  for (const h of ['folio.example.org', '127.0.0.1.example.org', 'localhost.example.org', '10.0.0.1', '[::2]:1', '127.0.0.1@folio.example.org', '']) assert.ok(!isLoopbackHost(h), h);
});
