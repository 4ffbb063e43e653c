// The FOLIO API calls of the check-in and check-out screens: those of PTF's Orchid plan
// (folio-org/perf-testing : workflows-scripts/circulation/check-in-check-out/Orchid/
// circulation_checkInCheckOut_orchid.jmx) and those the newer UIs add (ui-checkout 12-13, ui-checkin
// 11-12), as plain request descriptions plus the business rule each response must satisfy
// (lib/folio.js describes how). Pure: lib/k6/folio.js sends them, each UI release's sequence
// (lib/cico/releases/) puts them in its order.

import { endpoint, request, collection, cqlQuote, cqlId, parseJson } from '../folio.js';

// ---- shared collection GETs -------------------------------------------------------------------

const CONFIGS = collection('/configurations/entries', 'configs');
const GROUPS = collection('/groups', 'usergroups');
const ACCOUNTS = collection('/accounts', 'accounts');
const LOANS = collection('/circulation/loans', 'loans');
const REQUESTS = collection('/circulation/requests', 'requests');
const PROXIES = collection('/proxiesfor', 'proxiesFor');
const MANUAL_BLOCKS = collection('/manualblocks', 'manualblocks');
const LOST_ITEM_POLICIES = collection('/lost-item-fees-policies', 'lostItemFeePolicies');
const STAFF_SLIPS = collection('/staff-slips-storage/staff-slips', 'staffSlips');
const NOTE_LINKS = collection('/note-links/domain/users/type/user/id/{id}', 'notes');
const USERS_PAGE = collection('/users', 'users');
// ui-checkout 13 / ui-checkin 12 read the circulation settings from mod-circulation, not mod-configuration.
const CIRCULATION_SETTINGS = collection('/circulation/settings', 'circulationSettings');
// mod-users 19.6's users.settings interface (ui-checkout 13 reads the profile-picture setting there).
const USER_SETTINGS = collection('/user/settings', 'settings');
const LOAN_STORAGE = collection('/loan-storage/loans', 'loans');

export const configEntries = (query) => request(CONFIGS, { query: ['query', query] });
export const groups = (query) => request(GROUPS, { query: query ? ['query', query] : undefined });
export const accounts = (query, limit) => request(ACCOUNTS, { query: ['query', query, 'limit', limit] });
export const loans = (query, limit) => request(LOANS, { query: ['query', query, 'limit', limit] });
export const requests = (query, limit) => request(REQUESTS, { query: ['query', query, 'limit', limit] });
export const proxiesFor = (query, limit) => request(PROXIES, { query: ['query', query, 'limit', limit] });
export const manualBlocks = (userId) => request(MANUAL_BLOCKS, { query: ['query', `userId==${cqlId(userId)}`] });
export const lostItemFeesPolicies = (id) => request(LOST_ITEM_POLICIES, { query: ['query', `id==${cqlId(id)}`] });
export const staffSlips = () => request(STAFF_SLIPS, { query: ['limit', 1000] });
export const circulationSettings = (query) => request(CIRCULATION_SETTINGS, { query: ['query', query] });
export const userSettings = () => request(USER_SETTINGS);
export const loanStorageLoans = (query, limit) => request(LOAN_STORAGE, { query: ['query', query, 'limit', limit] });
export const noteLinks = (userId) => request(NOTE_LINKS, { path: { id: userId }, query: ['limit', 10000, 'order', 'desc', 'status', 'assigned'] });

// mod-users' profile-picture configuration (ui-checkout 12 reads `enabled`): one object, not a page
// (mod-users : ramls/users.raml, UsersAPI.getUsersConfigurationsEntry).
const USERS_CONFIGURATION = endpoint('GET', '/users/configurations/entry', {
  rules: ['status is 200', 'has configName'],
  judge: (status, doc) => [status === 200, typeof doc.get('configName') === 'string'],
});
export const usersConfigurationEntry = () => request(USERS_CONFIGURATION);

// The check-in screen loads the whole users page without a query (the server's default page size).
export const usersPage = () => request(USERS_PAGE);

// ---- calls with a business rule ---------------------------------------------------------------

// The check-out screen's patron lookup: the patron must be found (the UI cannot go on otherwise).
const FIND_PATRON = endpoint('GET', '/users', {
  rules: ['status is 200', 'patron found'],
  judge: (status, doc) => [status === 200, typeof doc.get('users.0.id') === 'string'],
  value: (doc) => ({ id: doc.get('users.0.id'), patronGroup: doc.get('users.0.patronGroup') }),
  empty: 'no user with that barcode',
});
export const findPatron = (userBarcode) => {
  const q = cqlQuote(userBarcode);
  return findPatronBy(`(barcode==${q} OR externalSystemId==${q} OR id==${q} OR username==${q})`);
};
// The same lookup with the query as a UI release builds it (ui-checkout 12: the configured identifiers only).
export const findPatronBy = (query) => request(FIND_PATRON, { query: ['query', query] });

const AUTOMATED_BLOCKS = endpoint('GET', '/automated-patron-blocks/{id}', {
  rules: ['status is 200', 'has automatedPatronBlocks[]'],
  judge: (status, doc) => [status === 200, typeof doc.get('automatedPatronBlocks.#') === 'number'],
});
export const automatedPatronBlocks = (userId, limit = 100) => request(AUTOMATED_BLOCKS, { path: { id: userId }, query: ['limit', limit] });

const SERVICE_POINTS = endpoint('GET', '/service-points', {
  rules: ['status is 200', 'has servicepoints[]'],
  judge: (status, doc) => [status === 200, doc.get('servicepoints.#') > 0],
  value: (doc) => doc.get('servicepoints.#'),
});
export const servicePoints = () => request(SERVICE_POINTS, { query: ['limit', 1000] });

// Item lookup by barcode before the POST: the item must exist (its id feeds later queries).
const ITEM_BY_BARCODE = endpoint('GET', '/inventory/items', {
  rules: ['status is 200', 'item found'],
  judge: (status, doc) => [status === 200, typeof doc.get('items.0.id') === 'string'],
  value: (doc) => ({ id: doc.get('items.0.id'), status: doc.get('items.0.status.name') }),
  empty: 'no item with that barcode',
});
export const itemByBarcode = (barcode, limit) => request(ITEM_BY_BARCODE, { query: ['query', `barcode==${cqlQuote(barcode)}`, 'limit', limit] });
// The item lookup of ui-checkout 12+ and ui-checkin 11+: its own query text, paged as the UI asks
// (limit, query, offset).
export const findItems = (query, limit, offset) => request(ITEM_BY_BARCODE, { query: ['limit', limit, 'query', query, 'offset', offset] });

// A check-out succeeded only if a loan was created and is Open: 201, or 200 for mod-circulation's
// "partial success" (loan created, but e.g. the patron action session was not saved).
const CHECK_OUT = endpoint('POST', '/circulation/check-out-by-barcode', {
  rules: ['status is 201', 'loan created', 'loan is Open'],
  judge: (status, doc) => {
    const isLoan = doc.get('errors') === undefined;
    return [status === 201 || status === 200, isLoan && typeof doc.get('id') === 'string', isLoan && doc.get('status.name') === 'Open'];
  },
  value: (doc) => ({ loanId: doc.get('id'), userId: doc.get('userId'), itemId: doc.get('itemId') }),
  empty: 'no loan in the response',
});
export const checkOutByBarcode = ({ itemBarcode, userBarcode, servicePointId, loanDate }) =>
  request(CHECK_OUT, { body: { itemBarcode, userBarcode, servicePointId, loanDate } });

// A check-in must return the item no longer checked out; if there was a loan it must be Closed.
// No loan at all is legal (FOLIO answers 200 for an item without an open loan, mod-circulation : ramls/check-in-by-barcode-response.json).
const CHECK_IN = endpoint('POST', '/circulation/check-in-by-barcode', {
  rules: ['status is 200', 'item returned', 'loan is Closed'],
  judge: (status, doc) => {
    // An item status must have a name (FOLIO's schema requires it); a loan, when there is one
    // (any non-null value), must be Closed.
    const itemStatus = doc.get('item.status.name');
    const loan = doc.get('loan');
    const hasLoan = loan !== undefined && loan !== null;
    return [status === 200, typeof itemStatus === 'string' && itemStatus !== 'Checked out', !hasLoan || doc.get('loan.status.name') === 'Closed'];
  },
  value: (doc) => ({
    itemId: doc.get('item.id'),
    itemStatus: doc.get('item.status.name'),
    loanId: doc.get('loan.id') ?? null,
    userId: doc.get('loan.userId') ?? null,
    lostItemPolicyId: doc.get('loan.lostItemPolicyId') ?? null,
  }),
});
export const checkInByBarcode = ({ itemBarcode, servicePointId, checkInDate }) =>
  request(CHECK_IN, { body: { itemBarcode, servicePointId, checkInDate } });
// ui-checkin 11+ sends its check-in session's id first (Scan.js checkIn: sessionId, servicePointId,
// checkInDate, itemBarcode).
export const checkInBySession = ({ sessionId, servicePointId, checkInDate, itemBarcode }) =>
  request(CHECK_IN, { body: { sessionId, servicePointId, checkInDate, itemBarcode } });

// Used by teardown: the open loans this run created (a real FOLIO may have other users' loans,
// so the query is narrowed to the run's service point and start time). Its value is the page.
const OPEN_LOANS = collection('/circulation/loans', 'loans', (doc) => parseJson(doc.text));
export const openLoansSince = (servicePointId, sinceIso, limit, offset) =>
  request(OPEN_LOANS, {
    query: [
      'query',
      `status.name=="Open" and checkoutServicePointId==${cqlId(servicePointId)} and loanDate>=${cqlQuote(sinceIso)}`,
      'limit',
      limit,
      'offset',
      offset,
    ],
  });

// ---- around the transactions: setup, teardown, a VU's re-read after a failure ----------------
// (sent with the client's aside(): a prefixed name, no check; lib/k6/cico.js)

// A page whose entries the caller reads itself (value: the parsed page): the caller keeps only the
// entries that answer its question, so a target that ignored the query cannot make it act on
// another item or loan.
function page(template, key) {
  const count = `${key}.#`;
  return endpoint('GET', template, {
    rules: ['status is 200', `has ${key}[]`],
    judge: (status, doc) => [status === 200, typeof doc.get(count) === 'number'],
    value: (doc) => parseJson(doc.text),
  });
}
const ITEMS_PAGE = page('/inventory/items', 'items');
const LOANS_PAGE = page('/circulation/loans', 'loans');
const USERS_BY_NAME = page('/users', 'users');
export const itemsPage = (query, limit) => request(ITEMS_PAGE, { query: ['query', query, 'limit', limit] });
export const loansPage = (query, limit) => request(LOANS_PAGE, { query: ['query', query, 'limit', limit] });
// The operator's own account (setup: its loans are the only ones a VU takes back).
export const userByUsername = (username) => request(USERS_BY_NAME, { query: ['query', `username==${cqlQuote(username)}`, 'limit', 1] });

// The first service point, when neither SERVICE_POINT_ID nor the CSV files name one.
const FIRST_SERVICE_POINT = endpoint('GET', '/service-points', {
  rules: ['status is 200', 'has a service point'],
  judge: (status, doc) => [status === 200, typeof doc.get('servicepoints.0.id') === 'string'],
  value: (doc) => doc.get('servicepoints.0.id'),
});
export const firstServicePoint = () => request(FIRST_SERVICE_POINT, { query: ['limit', 1] });

// Every `name` the CICO transactions of any UI release send (tests/unit/lib-transactions.test.mjs
// proves the list is complete); thresholds use it to compute per-API sub-metrics for the slow-API
// table and baselines.
export const CICO_API_NAMES = [
  'GET /configurations/entries',
  'GET /groups',
  'GET /users',
  'GET /accounts',
  'GET /circulation/loans',
  'GET /circulation/requests',
  'GET /proxiesfor',
  'GET /note-links/domain/users/type/user/id/{id}',
  'GET /manualblocks',
  'GET /automated-patron-blocks/{id}',
  'GET /inventory/items',
  'POST /circulation/check-out-by-barcode',
  'GET /staff-slips-storage/staff-slips',
  'GET /service-points',
  'POST /circulation/check-in-by-barcode',
  'GET /lost-item-fees-policies',
  'GET /users/configurations/entry',
  'GET /circulation/settings',
  'GET /user/settings',
  'GET /loan-storage/loans',
];
