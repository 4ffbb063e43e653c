import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as folio from '../../lib/folio.js';
import * as cico from '../../lib/cico/api.js';

// The request machinery (lib/folio.js) and the CICO calls built on it (lib/cico/api.js).
const api = { ...folio, ...cico };

const SP = '3a40852d-49fd-4df2-a1f9-6e2641a6e91f';
const co = api.checkOutByBarcode({ itemBarcode: 'i1', userBarcode: 'u1', servicePointId: SP, loanDate: '2026-11-22T04:00:00Z' });
const ci = api.checkInByBarcode({ itemBarcode: 'i1', servicePointId: SP, checkInDate: '2026-11-22T04:00:00Z' });

test('check-out passes only with an Open loan', () => {
  assert.equal(co.verify(201, JSON.stringify({ id: 'l1', userId: 'u', status: { name: 'Open' } })).ok, true);
  assert.equal(co.verify(200, JSON.stringify({ id: 'l1', status: { name: 'Open' } })).ok, true, "mod-circulation's partial success");
  const closed = co.verify(201, JSON.stringify({ id: 'l1', status: { name: 'Closed' } }));
  assert.deepEqual(closed.failed, ['loan is Open']);
  assert.equal(closed.detail, '', 'a loan that is there but not Open: the log names the failed rule, not "no loan"');
  assert.equal(co.verify(201, '{}').detail, 'no loan in the response');
  const e422 = co.verify(422, JSON.stringify({ errors: [{ message: 'Item is already checked out', parameters: [{ key: 'itemBarcode', value: 'i1' }] }] }));
  assert.equal(e422.ok, false);
  assert.equal(e422.detail, '422 Item is already checked out');
  assert.equal(co.verify(201, '<html>gateway</html>').ok, false, 'bad body: failure, no exception');
  assert.equal(co.verify(0, '').ok, false);
});

test('check-in passes when the item is back and any loan is Closed', () => {
  assert.equal(ci.verify(200, JSON.stringify({ item: { status: { name: 'Available' } }, loan: { id: 'l', status: { name: 'Closed' } } })).ok, true);
  assert.equal(ci.verify(200, JSON.stringify({ item: { status: { name: 'In transit' } } })).ok, true, 'no loan is legal');
  assert.deepEqual(ci.verify(200, JSON.stringify({ item: { status: { name: 'Available' } }, loan: { status: { name: 'Open' } } })).failed, ['loan is Closed']);
  assert.deepEqual(ci.verify(200, JSON.stringify({ item: { status: { name: 'Checked out' } } })).failed, ['item returned']);
  assert.deepEqual(ci.verify(200, JSON.stringify({ item: { status: { name: 'Available' } }, loan: {} })).failed, ['loan is Closed'], 'a loan without a status is not a closed one');
  assert.equal(ci.verify(422, JSON.stringify({ errors: [{ message: 'No item with barcode i1 exists' }] })).detail, '422 No item with barcode i1 exists');
  assert.equal(ci.verify(200, '').ok, false);
});

test('collections need FOLIO envelopes; 401 text bodies are reported', () => {
  const g = api.groups();
  assert.equal(g.verify(200, JSON.stringify({ usergroups: [], totalRecords: 0 })).ok, true);
  assert.deepEqual(g.verify(200, JSON.stringify({ usergroups: [] })).failed, ['has totalRecords']);
  const r = g.verify(401, 'Invalid token');
  assert.deepEqual(r.failed, ['status is 200', 'has totalRecords', 'has usergroups[]']);
  assert.equal(r.detail, '401 Invalid token');
  assert.equal(api.automatedPatronBlocks('x').verify(200, JSON.stringify({ automatedPatronBlocks: [] })).ok, true);
});

test('requests: templated names, encoded URLs, JSON bodies, UUIDs unquoted and other values quoted', () => {
  const uid = '4f0e711c-d583-41e0-9555-b62f1725023f';
  const apb = api.automatedPatronBlocks(uid);
  assert.equal(apb.name, 'GET /automated-patron-blocks/{id}');
  assert.equal(apb.url, `/automated-patron-blocks/${uid}?limit=100`);
  assert.equal(api.noteLinks(uid).url, `/note-links/domain/users/type/user/id/${uid}?limit=10000&order=desc&status=assigned`);
  assert.equal(api.manualBlocks(uid).url, `/manualblocks?query=${encodeURIComponent(`userId==${uid}`)}`);
  assert.equal(api.manualBlocks('x" or 1').url, `/manualblocks?query=${encodeURIComponent('userId=="x\\" or 1"')}`);
  assert.equal(api.cqlQuote('a*b"c'), '"a\\*b\\"c"');
  assert.equal(co.name, 'POST /circulation/check-out-by-barcode');
  assert.equal(co.url, '/circulation/check-out-by-barcode');
  assert.equal(JSON.parse(co.body).servicePointId, SP);
  assert.equal(api.itemByBarcode('A B', 40).url, `/inventory/items?query=${encodeURIComponent('barcode=="A B"')}&limit=40`);
  const pre = api.preflight(apb);
  assert.equal(pre.name, 'OPTIONS /automated-patron-blocks/{id}');
  assert.equal(pre.preflightFor, 'GET');
  assert.equal(pre.verify(204).ok, true);
  assert.equal(pre.verify(404).ok, false);
});

test("one check name per request: its rules together; each rule's own name for a failure", () => {
  assert.equal(co.checkName, 'POST /circulation/check-out-by-barcode: status is 201, loan created, loan is Open');
  assert.deepEqual(co.checkNames, ['status is 201', 'loan created', 'loan is Open'].map((r) => `POST /circulation/check-out-by-barcode: ${r}`));
  const pre = api.preflight(co);
  assert.equal(pre.checkName, 'OPTIONS /circulation/check-out-by-barcode: preflight answered 2xx');
  assert.deepEqual(pre.checkNames, [pre.checkName], 'a single rule keeps its own name');
});

test('a verdict is the same whether the body comes as text or as a document (k6 passes res.json)', () => {
  const bodies = [
    [201, JSON.stringify({ id: 'l1', userId: 'u', itemId: 'i', status: { name: 'Open' } })],
    [422, JSON.stringify({ errors: [{ message: 'Item is already checked out' }] })],
    [200, 'not json'],
  ];
  for (const [status, text] of bodies) {
    const doc = api.jsonDocument(text);
    let lookups = 0;
    const counting = { text: doc.text, get: (p) => (lookups++, doc.get(p)) };
    assert.deepEqual(co.verify(status, counting), co.verify(status, text));
    assert.ok(lookups > 0, 'the rules read the document, not the text');
  }
  assert.deepEqual(co.verify(201, bodies[0][1]).value, { loanId: 'l1', userId: 'u', itemId: 'i' });
});

test('the calls around the transactions: pages the caller filters, the first service point, the operator', () => {
  const items = api.itemsPage('barcode=="i 1"', 1);
  assert.equal(items.name, 'GET /inventory/items', 'the same name as the transactions\' lookup (sent with a prefix)');
  assert.equal(items.url, '/inventory/items?query=barcode%3D%3D%22i%201%22&limit=1');
  const page = items.verify(200, JSON.stringify({ items: [{ barcode: 'x' }], totalRecords: 1 }));
  assert.deepEqual([page.ok, page.value.items[0].barcode], [true, 'x']);
  assert.deepEqual(items.verify(200, '{"errors": []}').failed, ['has items[]']);
  assert.equal(items.verify(500, 'down').ok, false);
  const sp = api.firstServicePoint();
  assert.equal(sp.url, '/service-points?limit=1');
  assert.equal(sp.verify(200, JSON.stringify({ servicepoints: [{ id: 'sp1' }], totalRecords: 1 })).value, 'sp1');
  assert.deepEqual(sp.verify(200, JSON.stringify({ servicepoints: [], totalRecords: 0 })).failed, ['has a service point']);
  const me = api.userByUsername('folio_admin');
  assert.equal(me.url, '/users?query=username%3D%3D%22folio_admin%22&limit=1');
  assert.equal(api.loansPage('(itemId==x)', 1).name, 'GET /circulation/loans');
});
