import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkOut, checkIn, parseDistribution, selectTransaction, CHECK_IN, CHECK_OUT } from '../../lib/cico/transactions.js';
import { parseThink, thinkMs } from '../../lib/think.js';
import { CICO_API_NAMES } from '../../lib/cico/api.js';
import { UI_RELEASE_NAMES } from '../../lib/cico/releases.js';

const USER = '4f0e711c-d583-41e0-9555-b62f1725023f';
const GROUP = '3684a786-6671-4268-8ed0-9db82ebca60b';
const ITEM = '0b96a642-5e7f-452d-9cae-9cee66c9a892';
const LOAN = 'a7c4b3f2-1d2e-4f5a-8b9c-0d1e2f3a4b5c';
const LIP = 'ed892c0e-52e0-4cd9-8133-c0ef07b4a709';
const SP = '3a40852d-49fd-4df2-a1f9-6e2641a6e91f';

// Answers like FOLIO's (mod-circulation : ramls/loan.json, check-in-by-barcode-response.json) for the requests of a healthy transaction.
function folioAnswer(req) {
  const path = req.url.split('?')[0];
  if (req.method === 'OPTIONS') return [204, ''];
  if (path === '/users' && req.url.includes('query=')) return [200, JSON.stringify({ users: [{ id: USER, patronGroup: GROUP }], totalRecords: 1 })];
  if (path === '/inventory/items') return [200, JSON.stringify({ items: [{ id: ITEM, status: { name: 'Available' } }], totalRecords: 1 })];
  if (path.startsWith('/automated-patron-blocks/')) return [200, JSON.stringify({ automatedPatronBlocks: [] })];
  if (path === '/service-points') return [200, JSON.stringify({ servicepoints: [{ id: SP }], totalRecords: 1 })];
  if (path === '/circulation/check-out-by-barcode') return [201, JSON.stringify({ id: LOAN, userId: USER, itemId: ITEM, status: { name: 'Open' }, action: 'checkedout' })];
  if (path === '/circulation/check-in-by-barcode') {
    return [200, JSON.stringify({ item: { id: ITEM, status: { name: 'Available' } }, loan: { id: LOAN, userId: USER, lostItemPolicyId: LIP, status: { name: 'Closed' } } })];
  }
  if (path === '/users/configurations/entry') return [200, JSON.stringify({ id: GROUP, configName: 'PROFILE_PICTURE_CONFIG', enabled: false })];
  const key = { '/circulation/settings': 'circulationSettings', '/user/settings': 'settings', '/loan-storage/loans': 'loans', '/configurations/entries': 'configs', '/groups': 'usergroups', '/users': 'users', '/accounts': 'accounts', '/circulation/loans': 'loans', '/circulation/requests': 'requests', '/proxiesfor': 'proxiesFor', '/manualblocks': 'manualblocks', '/lost-item-fees-policies': 'lostItemFeePolicies', '/staff-slips-storage/staff-slips': 'staffSlips' }[path] || (path.startsWith('/note-links/') ? 'notes' : null);
  assert.ok(key, `unexpected request ${req.method} ${req.url}`);
  return [200, JSON.stringify({ [key]: [], totalRecords: 0 })];
}

// A client that records what the transaction does; each request "takes" 10 ms, each think 1000 ms.
function recorder(override = () => null) {
  const log = [];
  return {
    log,
    call(req) {
      const [status, body] = override(req) || folioAnswer(req);
      const v = req.verify(status, body);
      log.push({ kind: 'call', name: req.name, url: req.url, body: req.body, ok: v.ok });
      return { ok: v.ok, durationMs: 10, value: v.value };
    },
    think(timer) {
      log.push({ kind: 'think', timer });
    },
  };
}

const input = { userBarcode: 'u-0001', itemBarcode: 'i-0001', servicePointId: SP, now: '2026-11-22T04:00:00.000Z' };

test('check-out: Orchid order, 20 requests (the check-out samplers of the Orchid jmx), request time only', () => {
  const c = recorder();
  const r = checkOut(c, input);
  const calls = c.log.filter((e) => e.kind === 'call');
  assert.equal(r.ok, true);
  assert.equal(r.transaction, CHECK_OUT);
  assert.equal(calls.length, 20);
  assert.equal(r.durationMs, 200, 'sum of request times, think time excluded');
  assert.deepEqual(calls.slice(0, 5).map((e) => e.name), ['GET /configurations/entries', 'GET /configurations/entries', 'GET /groups', 'GET /users', 'GET /groups']);
  const post = calls.findIndex((e) => e.name === 'POST /circulation/check-out-by-barcode');
  assert.equal(calls[post - 1].name, 'GET /inventory/items');
  assert.deepEqual(calls.slice(post + 1).map((e) => e.name), ['GET /circulation/loans', 'GET /automated-patron-blocks/{id}', 'GET /circulation/requests']);
  assert.deepEqual(JSON.parse(calls[post].body), { itemBarcode: 'i-0001', userBarcode: 'u-0001', servicePointId: SP, loanDate: input.now });
  assert.ok(calls[3].url.includes(encodeURIComponent('(barcode=="u-0001" OR externalSystemId=="u-0001"')));
  // PTF's quirk: the query value itself starts with "query=".
  assert.ok(calls.some((e) => e.url === `/proxiesfor?query=${encodeURIComponent(`query=(userId==${USER})`)}&limit=80`));
  assert.equal(c.log.filter((e) => e.kind === 'think').length, 4, "PTF's four timers in check-out");
  // The last think (5 s + U(2 s)) comes right before the final requests lookup.
  assert.equal(c.log.at(-2).kind, 'think');
  assert.deepEqual(c.log.at(-2).timer, { constant: 5000, range: 2000, offset: true });
});

test('check-in: Orchid order, 12 requests, six timers', () => {
  const c = recorder();
  const r = checkIn(c, { itemBarcode: 'i-0001', servicePointId: SP, now: () => '2026-11-22T04:00:01.000Z' });
  const calls = c.log.filter((e) => e.kind === 'call');
  assert.equal(r.ok, true);
  assert.equal(r.hadLoan, true);
  assert.equal(calls.length, 12);
  assert.equal(r.durationMs, 120);
  assert.deepEqual(calls.map((e) => e.name), [
    'GET /groups', 'GET /users', 'GET /staff-slips-storage/staff-slips', 'GET /service-points', 'GET /configurations/entries',
    'GET /inventory/items', 'POST /circulation/check-in-by-barcode', 'GET /circulation/requests', 'GET /accounts',
    'GET /lost-item-fees-policies', 'GET /accounts', 'GET /accounts',
  ]);
  assert.equal(JSON.parse(calls[6].body).checkInDate, '2026-11-22T04:00:01.000Z', 'date taken when the POST is built');
  assert.equal(c.log.filter((e) => e.kind === 'think').length, 6);
});

test('check-in of an item without a loan skips the loan-dependent lookups', () => {
  const c = recorder((req) => (req.name === 'POST /circulation/check-in-by-barcode' ? [200, JSON.stringify({ item: { id: ITEM, status: { name: 'Available' } } })] : null));
  const r = checkIn(c, { itemBarcode: 'i-0001', servicePointId: SP, now: input.now });
  assert.equal(r.ok, true);
  assert.equal(r.hadLoan, false);
  assert.equal(c.log.filter((e) => e.kind === 'call').length, 8);
});

test('a failed business rule fails the transaction and stops it there', () => {
  // 201 but the loan is not Open: a failure even though the status code looks fine.
  const c = recorder((req) => (req.name === 'POST /circulation/check-out-by-barcode' ? [201, JSON.stringify({ id: LOAN, status: { name: 'Closed' } })] : null));
  const r = checkOut(c, input);
  assert.equal(r.ok, false);
  assert.equal(r.failedAt, 'POST /circulation/check-out-by-barcode');
  assert.equal(c.log.at(-1).name, 'POST /circulation/check-out-by-barcode', 'nothing sent after the failure');
  const r422 = checkOut(recorder((req) => (req.name === 'POST /circulation/check-out-by-barcode' ? [422, JSON.stringify({ errors: [{ message: 'Item is already checked out' }] })] : null)), input);
  assert.equal(r422.ok, false);
  const noUser = recorder((req) => (req.name === 'GET /users' ? [200, JSON.stringify({ users: [], totalRecords: 0 })] : null));
  const r2 = checkOut(noUser, input);
  assert.equal(r2.ok, false);
  assert.equal(r2.failedAt, 'GET /users');
  assert.equal(noUser.log.filter((e) => e.kind === 'call').length, 4);
});

test('PREFLIGHT=true sends an OPTIONS before every call and counts it in the time', () => {
  const c = recorder();
  const r = checkOut(c, input, { preflight: true });
  const calls = c.log.filter((e) => e.kind === 'call');
  assert.equal(calls.length, 40);
  for (let i = 0; i < calls.length; i += 2) {
    assert.equal(calls[i].name.split(' ')[0], 'OPTIONS');
    assert.equal(calls[i].url, calls[i + 1].url);
  }
  assert.equal(r.durationMs, 400);
  const failing = recorder((req) => (req.method === 'OPTIONS' ? [403, ''] : null));
  const rf = checkIn(failing, input, { preflight: true });
  assert.equal(rf.ok, false);
  assert.equal(rf.failedAt, 'OPTIONS /groups');
});

test('every name sent by any UI release is a templated path in CICO_API_NAMES (no ids, no query values)', () => {
  const c = recorder();
  for (const release of UI_RELEASE_NAMES) {
    assert.equal(checkOut(c, input, {}, release).ok, true, release);
    assert.equal(checkIn(c, { ...input, sessionId: LOAN }, {}, release).ok, true, release);
  }
  const names = new Set(c.log.filter((e) => e.kind === 'call').map((e) => e.name));
  assert.deepEqual([...names].sort(), [...CICO_API_NAMES].sort());
  for (const n of names) assert.ok(!n.includes('?') && !n.includes(USER) && !/[0-9a-f]{8}-/.test(n), n);
});

test('THINK=ptf as JMeter ran it: "<constant> + ${thinktime_offset}" timers wait only their random part; THINK_OFFSET ignored', () => {
  const offsetTimer = { constant: 1000, range: 2000, offset: true };
  const plainTimer = { constant: 1000, range: 3000, offset: false };
  assert.equal(thinkMs(parseThink('ptf', '0'), offsetTimer, () => 0), 0);
  assert.equal(thinkMs(parseThink('ptf', '0'), offsetTimer, () => 0.999), 1998);
  assert.equal(thinkMs(parseThink('ptf', '250'), offsetTimer, () => 0.5), 1000, 'THINK_OFFSET never had an effect');
  assert.equal(thinkMs(parseThink('ptf', '250'), plainTimer, () => 0.5), 2500, 'a plain constant parses and is kept');
  assert.equal(thinkMs(parseThink('ptf'), { constant: 5000, range: 2000, offset: true }, () => 0.25), 500);
  assert.equal(parseThink(undefined).mode, 'ptf');
});

test('THINK=ptf-intended: constant + THINK_OFFSET + random where the plan writes the offset', () => {
  const timer = { constant: 1000, range: 2000, offset: true };
  assert.equal(thinkMs(parseThink('ptf-intended', '0'), timer, () => 0), 1000);
  assert.equal(thinkMs(parseThink('ptf-intended', '0'), timer, () => 0.999), 2998);
  assert.equal(thinkMs(parseThink('ptf-intended', '250'), timer, () => 0.5), 2250);
  assert.equal(thinkMs(parseThink('ptf-intended', '250'), { ...timer, offset: false }, () => 0.5), 2000);
});

test('THINK none, fixed milliseconds, bad values', () => {
  const timer = { constant: 1000, range: 2000, offset: true };
  assert.equal(thinkMs(parseThink('none'), timer, () => 0.5), 0);
  assert.equal(thinkMs(parseThink('750'), timer, () => 0.9), 750);
  assert.throws(() => parseThink('slow'), /THINK "slow" .*fix: use THINK=ptf, THINK=ptf-intended, THINK=none or THINK=<milliseconds>/);
  assert.throws(() => parseThink('ptf', '-5'), /THINK_OFFSET/);
  assert.throws(() => parseThink('ptf-intended', 'x'), /THINK_OFFSET/);
});

// Mean think time of one whole transaction: the timers the transaction really runs, each at the
// middle of its random range.
function meanThink(run, think, offset) {
  const policy = parseThink(think, offset);
  let ms = 0;
  const c = recorder();
  c.think = (timer) => {
    ms += thinkMs(policy, timer, () => 0.5);
  };
  run(c, input);
  return ms;
}

test('think time per transaction: ptf about 5.5 s per check-out and 6.5 s per check-in; ptf-intended 12.5 s and 24.5 s', () => {
  assert.equal(meanThink(checkOut, 'ptf'), 5500);
  assert.equal(meanThink(checkIn, 'ptf'), 6500);
  assert.equal(meanThink(checkOut, 'ptf', '1000'), 5500);
  assert.equal(meanThink(checkOut, 'ptf-intended'), 12500);
  assert.equal(meanThink(checkIn, 'ptf-intended'), 24500);
  assert.equal(meanThink(checkOut, 'ptf-intended', '100'), 12800, 'three offset timers on the check-out path');
  assert.equal(meanThink(checkIn, 'ptf-intended', '100'), 25100, 'six on the check-in path with a loan and a lost-item policy');
});

test('DISTRIBUTION: PTF selector, 43 % check-in by default', () => {
  const d = parseDistribution(undefined);
  assert.deepEqual(d, { checkIn: 43, checkOut: 57 });
  assert.equal(selectTransaction(d, 0), CHECK_IN);
  assert.equal(selectTransaction(d, 0.4299), CHECK_IN);
  assert.equal(selectTransaction(d, 0.43), CHECK_OUT);
  assert.equal(selectTransaction(d, 0.9999), CHECK_OUT);
  let ins = 0;
  for (let i = 0; i < 1000; i++) if (selectTransaction(d, i / 1000) === CHECK_IN) ins++;
  assert.equal(ins, 430);
  assert.equal(selectTransaction(parseDistribution('0-100'), 0), CHECK_OUT);
  assert.equal(selectTransaction(parseDistribution('100-0'), 0.9999), CHECK_IN);
  assert.throws(() => parseDistribution('50-60'), /adds up to 110/);
  assert.throws(() => parseDistribution('half'), /DISTRIBUTION "half"/);
});

// ---- UI releases: the sequences as the UI sources list them --------------------------------------

const urls = (c) => c.log.filter((e) => e.kind === 'call').map((e) => decodeURIComponent(e.url));

test('Sunflower check-out: ui-checkout 12.0.2 request by request (page load, patron, patron pane, item, after)', () => {
  const c = recorder();
  const r = checkOut(c, input, {}, 'sunflower');
  assert.equal(r.ok, true);
  assert.deepEqual(urls(c), [
    '/configurations/entries?query=(module==CHECKOUT and configName==other_settings)',
    '/users/configurations/entry',
    '/groups',
    '/users?query=(barcode=="u-0001")',
    `/manualblocks?query=userId==${USER}`,
    `/automated-patron-blocks/${USER}?limit=10000`,
    `/proxiesfor?query=query=(proxyUserId==${USER})`,
    `/circulation/requests?query=(requesterId==${USER} and pickupServicePointId==${SP} and status=="Open - Awaiting pickup")`,
    `/groups?query=(id==${GROUP})`,
    `/circulation/loans?query=(userId==${USER} and status.name<>Closed)&limit=1`,
    `/accounts?query=(userId==${USER} and status.name<>Closed)&limit=10000`,
    `/circulation/requests?query=(requesterId==${USER} and status=="Open*")&limit=10000`,
    `/proxiesfor?query=query=(userId==${USER})&limit=80`,
    `/proxiesfor?query=query=(proxyUserId==${USER})&limit=80`,
    `/note-links/domain/users/type/user/id/${USER}?limit=10000&order=desc&status=assigned`,
    '/inventory/items?limit=100&query=barcode=="i-0001"&offset=0',
    '/circulation/check-out-by-barcode',
    `/automated-patron-blocks/${USER}?limit=10000`,
    `/circulation/loans?query=(userId==${USER} and status.name<>Closed)&limit=1`,
    `/circulation/requests?query=(requesterId==${USER} and status=="Open*")&limit=10000`,
  ]);
  const post = c.log.find((e) => e.name === 'POST /circulation/check-out-by-barcode');
  assert.deepEqual(Object.keys(JSON.parse(post.body)), ['itemBarcode', 'userBarcode', 'servicePointId', 'loanDate']);
  assert.equal(c.log.filter((e) => e.kind === 'think').length, 4, "PTF's Orchid timers at the same moments");
});

test('Sunflower check-in: ui-checkin 11.0.3, the check-in session id first in the body', () => {
  const c = recorder();
  const r = checkIn(c, { ...input, sessionId: LOAN }, {}, 'sunflower');
  assert.equal(r.ok, true);
  assert.equal(r.hadLoan, true);
  assert.deepEqual(urls(c), [
    '/groups',
    '/users',
    '/staff-slips-storage/staff-slips?limit=1000',
    '/service-points?limit=1000',
    '/configurations/entries?query=(module=CHECKOUT and configName=other_settings)',
    '/inventory/items?limit=100&query=barcode==i-0001&offset=0',
    '/circulation/check-in-by-barcode',
    `/accounts?query=loanId=="${LOAN}"`,
    `/circulation/requests?query=(itemId==${ITEM} and (status=="Open - Awaiting pickup" or status=="Open - Awaiting delivery"))`,
    `/lost-item-fees-policies?query=id==${LIP}`,
    `/accounts?query=(userId==${USER} and itemId==${ITEM}) AND (status.name=="Open" OR status.name=="Closed")`,
    `/accounts?query=(userId==${USER} and itemId==${ITEM} and loanId==${LOAN}) and status.name=="Open"`,
  ]);
  const post = c.log.find((e) => e.name === 'POST /circulation/check-in-by-barcode');
  assert.deepEqual(JSON.parse(post.body), { sessionId: LOAN, servicePointId: SP, checkInDate: input.now, itemBarcode: 'i-0001' });
  // A barcode that is not a plain word is quoted, so it cannot change the query.
  const q = recorder();
  checkIn(q, { ...input, itemBarcode: 'i 1 or x=y', sessionId: LOAN }, {}, 'sunflower');
  assert.ok(urls(q).includes('/inventory/items?limit=100&query=barcode=="i 1 or x=y"&offset=0'), urls(q).join('\n'));
});

test('Trillium = Sunflower with ui-checkout 13 / ui-checkin 12 changes: settings from mod-circulation and mod-users, loan pre-checks', () => {
  const diff = (kind, run) => {
    const s = recorder();
    const t = recorder();
    assert.equal(run(s, 'sunflower').ok, true);
    assert.equal(run(t, 'trillium').ok, true);
    const a = urls(s);
    const b = urls(t);
    return { removed: a.filter((u) => !b.includes(u)), added: b.filter((u) => !a.includes(u)), b };
  };
  const out = diff('check-out', (c, r) => checkOut(c, input, {}, r));
  assert.deepEqual(out.removed, ['/configurations/entries?query=(module==CHECKOUT and configName==other_settings)', '/users/configurations/entry']);
  assert.deepEqual(out.added, [
    '/circulation/settings?query=(name==other_settings)',
    '/user/settings',
    `/circulation/loans?query=(userId==${USER} and checkoutServicePointId==${SP} and forUseAtLocation.status="Held")`,
    `/loan-storage/loans?query=itemId==${ITEM} and status.name<>Closed&limit=1`,
  ]);
  // The item's loan is read between the item lookup and the check-out.
  const post = out.b.indexOf('/circulation/check-out-by-barcode');
  assert.equal(out.b[post - 1], `/loan-storage/loans?query=itemId==${ITEM} and status.name<>Closed&limit=1`);
  const inn = diff('check-in', (c, r) => checkIn(c, { ...input, sessionId: LOAN }, {}, r));
  assert.deepEqual(inn.removed, ['/configurations/entries?query=(module=CHECKOUT and configName=other_settings)']);
  assert.deepEqual(inn.added, ['/circulation/settings?query=(name==other_settings)', `/circulation/loans?query=itemId=="${ITEM}" and status.name==Open`]);
  assert.equal(inn.b[inn.b.indexOf('/circulation/check-in-by-barcode') - 1], `/circulation/loans?query=itemId=="${ITEM}" and status.name==Open`);
});

test('an unknown UI_RELEASE is refused with the names to use', () => {
  assert.throws(() => checkOut(recorder(), input, {}, 'ramsons'), /UI_RELEASE "ramsons" is not a UI release .*fix: use one of UI_RELEASE=orchid, UI_RELEASE=sunflower, UI_RELEASE=trillium/);
});
