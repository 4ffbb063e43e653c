// Acceptance of the project's k6/x/sql module: bin/k6 runs
// tests/e2e/k6/sql.js against the stack's PostgreSQL; the script records what
// it saw in setup() and handleSummary writes that to a file, which the tests
// below check. Needs FP_PG_DSN (a superuser: the script creates a table and a
// login role, and drops both) and bin/k6 (`make k6`); `make test` sets both.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, env, run } from './helpers.mjs';

let dir;
let obs; // setup()'s observations
let checks; // the VU iteration's checks
let output; // everything k6 printed
let secrets; // passwords that must not appear anywhere
const ctx = {};

before(() => {
  const k6 = bin('k6');
  if (!existsSync(k6)) throw new Error(`${k6} is missing: run \`make k6\` first`);

  const base = new URL(env('FP_PG_DSN'));
  const hex = randomBytes(6).toString('hex');
  ctx.role = `fp_sql_e2e_${hex}`;
  ctx.rolePw = `Role-${hex}-pw`;
  // A DSN for the test's role, on the stack's server unless told otherwise.
  const dsnFor = ({ password = ctx.rolePw, host = base.host, db = base.pathname.slice(1) } = {}) =>
    `postgres://${ctx.role}:${encodeURIComponent(password)}@${host}/${db}${base.search}`;

  dir = mkdtempSync(join(tmpdir(), 'fp-sql-e2e-'));
  const out = join(dir, 'observations.json');
  // --address= turns k6's REST API off: no port to collide with other runs.
  const r = run(k6, ['run', '--address=', 'tests/e2e/k6/sql.js'], {
    timeoutMs: 180_000,
    env: {
      K6_AUTO_EXTENSION_RESOLUTION: 'false',
      K6_NO_USAGE_REPORT: 'true',
      SQL_E2E_OUT: out,
      SQL_E2E_TABLE: `fp_sql_e2e_${hex}`,
      SQL_E2E_ROLE: ctx.role,
      SQL_E2E_ROLE_PW: ctx.rolePw,
      SQL_E2E_ROLE_DSN: dsnFor(),
      // net/url rejects the port, and its message quotes the whole DSN.
      SQL_E2E_DSN_MALFORMED: `postgres://${ctx.role}:${ctx.rolePw}@${base.hostname}:notaport/db`,
      SQL_E2E_DSN_WRONG_PW: dsnFor({ password: `wrong-${hex}` }),
      SQL_E2E_DSN_REFUSED: dsnFor({ host: '127.0.0.1:1' }),
      SQL_E2E_DSN_NO_DB: dsnFor({ db: `no_such_db_${hex}` }),
    },
  });
  output = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, `k6 exited with ${r.status}:\n${output}`);
  const written = JSON.parse(readFileSync(out, 'utf8'));
  obs = written.setup;
  checks = written.checks;
  assert.ok(obs, `handleSummary wrote no setup data:\n${output}`);

  secrets = [ctx.rolePw];
  // The stack's own password too, when it is distinctive enough to search
  // for (make test uses one; a bare "folio" would match the user name).
  const stackPw = decodeURIComponent(base.password);
  if (stackPw.length >= 8 && !base.username.includes(stackPw)) secrets.push(stackPw);
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// byId indexes the observed rows by their uuid.
const byId = () => Object.fromEntries(obs.rows.map((r) => [r.id.value, r]));

test('the driver module exports a Symbol described by the database/sql driver name', () => {
  assert.deepEqual(obs.driver, { type: 'symbol', description: 'postgres' });
  assert.equal(obs.namedOpen, true, 'open is also a named export, as in xk6-sql');
});

test('exec returns a Result: rowsAffected() counts, lastInsertId() throws with a hint', () => {
  assert.equal(obs.create, 0);
  assert.deepEqual(obs.inserted, [1, 1, 1]);
  assert.equal(obs.updated, 2);
  assert.equal(obs.execWithTimeoutOk, 1);
  assert.equal(obs.lastInsertId.threw, true);
  assert.equal(obs.lastInsertId.isError, true);
  assert.match(obs.lastInsertId.message, /LastInsertId is not supported.*RETURNING/);
});

test('rows are arrays of objects keyed by column name, in select order; no rows is []', () => {
  assert.equal(obs.isArray, true);
  assert.deepEqual(obs.keys,
    ['id', 'title', 'copies', 'big', 'price', 'ratio', 'doc', 'created', 'due', 'local_ts', 'flag', 'note', 'raw']);
  assert.deepEqual(obs.empty, []);
  assert.deepEqual(obs.withTimeoutOk, [{ one: 1, nothing: null }]);
  assert.deepEqual(obs.placeholderFilter, [{ title: 'Ölgemälde — "quoted"' }]);
});

test('values inserted with $1 placeholders come back as plain JS values', () => {
  const rows = byId();
  const a = rows['6a1e3d52-0b8e-4a55-9f1f-1c7b9a2f0e11'];
  assert.ok(a, `row missing: ${JSON.stringify(obs.rows)}`);
  const typed = (o) => ({ type: o.type, value: o.value });
  assert.deepEqual(typed(a.id), { type: 'string', value: '6a1e3d52-0b8e-4a55-9f1f-1c7b9a2f0e11' });
  assert.deepEqual(typed(a.title), { type: 'string', value: 'Ölgemälde — "quoted"' });
  assert.deepEqual(typed(a.copies), { type: 'number', value: 3 });
  assert.deepEqual(typed(a.big), { type: 'number', value: 9007199254740991 });
  assert.deepEqual(typed(a.price), { type: 'number', value: 12.5 });
  assert.deepEqual(typed(a.ratio), { type: 'number', value: 0.25 });
  assert.equal(a.doc.type, 'string', 'jsonb comes back as JSON text');
  assert.deepEqual(JSON.parse(a.doc.value), { status: { name: 'Available' }, barcodes: ['A1', 'B2'] });
  // Inserted as 05:02:12.123456+01: the same instant in UTC, microseconds kept.
  assert.deepEqual(typed(a.created), { type: 'string', value: '2026-11-22T04:02:12.123456Z' });
  assert.equal(a.createdParses, Date.UTC(2026, 10, 22, 4, 2, 12, 123), 'new Date() parses the timestamptz string');
  assert.deepEqual(typed(a.due), { type: 'string', value: '2026-12-24' });
  assert.deepEqual(typed(a.local_ts), { type: 'string', value: '2026-11-22T04:02:12.500000' });
  assert.deepEqual(typed(a.flag), { type: 'boolean', value: true });
  assert.deepEqual(typed(a.note), { type: 'string', value: 'seen' });
  assert.equal(a.raw.isArrayBuffer, true, 'bytea is an ArrayBuffer');
  assert.deepEqual(a.raw.value, [0, 1, 255]);

  // Sent as a JS number, a plain object (jsonb) and a Date (timestamptz).
  const b = rows['f0e1d2c3-b4a5-4697-8899-aabbccddeeff'];
  assert.deepEqual(typed(b.copies), { type: 'number', value: -7 });
  assert.deepEqual(typed(b.price), { type: 'number', value: 1234567.89 });
  assert.deepEqual(JSON.parse(b.doc.value), { status: { name: 'Checked out' } });
  assert.deepEqual(typed(b.created), { type: 'string', value: '2026-01-02T03:04:05.600000Z' });
  assert.deepEqual(typed(b.flag), { type: 'boolean', value: false });
});

test('NULL of every type is null', () => {
  const c = byId()['00000000-0000-4000-8000-000000000000'];
  for (const col of ['title', 'copies', 'big', 'price', 'ratio', 'doc', 'created', 'due', 'local_ts', 'flag', 'note', 'raw']) {
    assert.equal(c[col].isNull, true, `${col}: ${JSON.stringify(c[col])}`);
    assert.equal(c[col].value, null);
  }
  const b = byId()['f0e1d2c3-b4a5-4697-8899-aabbccddeeff'];
  assert.equal(b.due.isNull, true, 'null sent as a $n argument is stored as NULL');
  assert.equal(b.raw.isArrayBuffer, false);
});

// expectThrown checks one observed failure: a catchable Error with the text.
function expectThrown(o, re, what) {
  assert.ok(o, `${what}: not observed`);
  assert.equal(o.threw, true, `${what}: did not throw (${JSON.stringify(o)})`);
  assert.equal(o.isError, true, `${what}: not an Error`);
  assert.match(o.message, re, what);
}

test('a bad DSN raises a catchable exception with the driver message', () => {
  expectThrown(obs.badDsn.malformed, /invalid port ":notaport"/, 'malformed DSN');
  expectThrown(obs.badDsn.wrongPassword, new RegExp(`pq: password authentication failed for user "${ctx.role}"`), 'wrong password');
  expectThrown(obs.badDsn.refused, /connect: connection refused/, 'nothing listening');
  expectThrown(obs.badDsn.noDatabase, /pq: database "no_such_db_[0-9a-f]+" does not exist/, 'unknown database');
  // The right password works, so the failures above are the DSNs' fault.
  assert.deepEqual(obs.roleUser, { threw: false, value: ctx.role });
});

test('bad SQL raises a catchable exception with the driver message, and the pool survives it', () => {
  expectThrown(obs.errors.badSql, /pq: syntax error at or near "SELEC"/, 'syntax error');
  expectThrown(obs.errors.missingTable, /pq: relation "fp_sql_e2e_[0-9a-f]+_missing" does not exist/, 'missing table');
  expectThrown(obs.errors.badParam, /pq: invalid input syntax for type integer: "many"/, 'bad $1 value');
  assert.deepEqual(obs.afterErrors, [{ two: 2 }]);
});

test('a query or exec timeout cancels the statement and raises the driver message', () => {
  expectThrown(obs.errors.queryTimeout, /pq: canceling statement due to user request.*timeout 300ms exceeded/, 'queryWithTimeout');
  expectThrown(obs.errors.execTimeout, /pq: canceling statement due to user request.*timeout 300ms exceeded/, 'execWithTimeout');
  expectThrown(obs.errors.badTimeout, /db\.queryWithTimeout: timeout "soon" is not a positive duration/, 'bad timeout');
});

test('misuse of sql.open says what to pass instead', () => {
  expectThrown(obs.errors.notADriver, /unsupported database driver.*k6\/x\/sql\/driver\/postgres/, 'string driver');
  expectThrown(obs.errors.unknownOption, /unknown option "maxOpenConns".*max_open_conns/, 'camelCase option');
});

test('db.close() then a query or exec raises', () => {
  assert.deepEqual(obs.close, { threw: false, value: null });
  expectThrown(obs.afterClose, /^sql: database is closed$/, 'query after close');
  expectThrown(obs.execAfterClose, /^sql: database is closed$/, 'exec after close');
});

test('a VU iteration queries through a pool opened in the init context', () => {
  assert.deepEqual(checks, { rate: 1, passes: 1, fails: 0 });
});

test('no password appears in k6 output or in the error messages', () => {
  // The malformed-DSN message quotes the DSN: it must show the mask, which
  // also proves this check looks at text that did contain the password.
  assert.match(obs.badDsn.malformed.message, new RegExp(`${ctx.role}:xxxxx@`));
  const observations = JSON.stringify(obs);
  for (const s of secrets) {
    assert.equal(output.includes(s), false, 'a password appears in k6 output');
    assert.equal(observations.includes(s), false, 'a password appears in an error message');
  }
});

test('k6 stopping a scenario cancels the VU\'s running statement on the server (VU context)', () => {
  const hex = randomBytes(6).toString('hex');
  const out = join(dir, 'vu-context.json');
  // The script's statement sleeps 120s and k6 stops the scenario after 3s.
  // Were the VU context not used, k6 could not interrupt the call: it would
  // wait out the sleep (run() gives up at 100s and throws).
  const started = Date.now();
  const r = run(bin('k6'), ['run', '--quiet', '--address=', 'tests/e2e/k6/sql-vu-context.js'], {
    timeoutMs: 100_000,
    env: {
      K6_AUTO_EXTENSION_RESOLUTION: 'false',
      K6_NO_USAGE_REPORT: 'true',
      SQL_E2E_OUT: out,
      SQL_E2E_TABLE: `fp_sql_ctx_${hex}`,
      SQL_E2E_MARK: `fp_sql_ctx_mark_${hex}`,
    },
  });
  const elapsed = Date.now() - started;
  assert.equal(r.status, 0, `k6 exited with ${r.status}:\n${r.stdout}\n${r.stderr}`);
  // A ratio, not a timing budget: the run must not have waited out the sleep.
  assert.ok(elapsed < 120_000 / 2, `k6 took ${elapsed}ms: the 120s statement was not interrupted`);
  const got = JSON.parse(readFileSync(out, 'utf8'));
  assert.deepEqual(got.checks, {
    'the VU reached the sleeping statement': { passes: 1, fails: 0 },
    'the sleeping statement was cancelled on the server': { passes: 1, fails: 0 },
  });
  assert.equal(got.completedIterations, 0, 'the iteration was interrupted, not completed');
});
