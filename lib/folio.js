// The FOLIO API calls of PTF's Orchid check-in/check-out plan (folio-api.md §2.2, §2.3), as plain
// request descriptions plus the business rule each response must satisfy. Pure: lib/k6/folio.js
// sends them. Every request carries a low-cardinality `name` (method + templated path, never an id
// or a query value), because InfluxDB 1.x rejects a tag past 100,000 values.

// CQL string literal: quote and escape what CQL treats specially (RMB README "CQL: Relations").
export function cqlQuote(value) {
  return '"' + String(value).replace(/[\\"*?^]/g, (c) => '\\' + c) + '"';
}

// UUID-looking values are sent unquoted as PTF/the UI do; anything else is quoted so a hostile
// barcode cannot change the query.
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export function cqlId(value) {
  return UUID.test(String(value)) ? String(value) : cqlQuote(value);
}

// Runs for every request of every VU, so it is written for k6's JavaScript VM: a plain loop and
// concatenation (Object.entries with destructuring took ~9 us, this ~2 us), and only the values
// are encoded: the keys are this file's literal parameter names, numbers need no encoding.
export function queryString(params) {
  let s = '';
  for (const k in params) {
    const v = params[k];
    if (v === undefined || v === null) continue;
    s += (s === '' ? '?' : '&') + k + '=' + (typeof v === 'number' ? v : encodeURIComponent(String(v)));
  }
  return s;
}

function fillTemplate(template, pathParams) {
  if (template.indexOf('{') < 0) return template;
  return template.replace(/\{(\w+)\}/g, (_, k) => {
    if (pathParams === undefined || pathParams[k] === undefined) throw new Error(`missing path parameter ${k} for ${template}`);
    return encodeURIComponent(String(pathParams[k]));
  });
}

export function parseJson(text) {
  if (typeof text !== 'string' || text === '') return null;
  try {
    return JSON.parse(text);
  } catch (_) {
    return null;
  }
}

// One short reason per failed rule, used both as the k6 check name (low cardinality: no values)
// and in the first-failures log. A plain loop: this runs for every request of every VU, and
// filter/map closures were a measurable part of k6's CPU (make bench-k6).
function verdict(rules, value, detail) {
  const failed = [];
  for (let i = 0; i < rules.length; i++) if (!rules[i][1]) failed.push(rules[i][0]);
  return { ok: failed.length === 0, rules, failed, value, detail };
}

// The first error message of a FOLIO 422 body, or a snippet of a text body, for the log only.
export function errorDetail(status, bodyText) {
  const body = parseJson(bodyText);
  if (body && Array.isArray(body.errors) && body.errors.length && body.errors[0].message) return `${status} ${body.errors[0].message}`;
  const t = typeof bodyText === 'string' ? bodyText.replace(/\s+/g, ' ').slice(0, 120) : '';
  return `${status}${t ? ' ' + t : ''}`;
}

function collection(arrayKey) {
  return (status, text) => {
    const body = parseJson(text);
    return verdict(
      [
        ['status is 200', status === 200],
        ['has totalRecords', !!body && Number.isInteger(body.totalRecords)],
        [`has ${arrayKey}[]`, !!body && Array.isArray(body[arrayKey])],
      ],
      body,
      status === 200 ? '' : errorDetail(status, text),
    );
  };
}

function req(method, template, { path, query, body, verify }) {
  return {
    method,
    name: `${method} ${template}`,
    url: fillTemplate(template, path) + queryString(query),
    body: body === undefined ? null : JSON.stringify(body),
    verify,
  };
}

// CORS preflight the browser sends before the real call; Okapi answers it itself. Named by the
// template of the call it precedes so preflights can be compared with their calls.
export function preflight(real) {
  return {
    method: 'OPTIONS',
    name: `OPTIONS ${real.name.slice(real.name.indexOf(' ') + 1)}`,
    url: real.url,
    body: null,
    preflightFor: real.method,
    verify: (status) => verdict([['preflight answered 2xx', status >= 200 && status < 300]], null, status < 300 ? '' : `${status}`),
  };
}

// ---- shared collection GETs -------------------------------------------------------------------

export const configEntries = (query) => req('GET', '/configurations/entries', { query: { query }, verify: collection('configs') });
export const groups = (query) => req('GET', '/groups', { query: query ? { query } : undefined, verify: collection('usergroups') });
export const accounts = (query, limit) => req('GET', '/accounts', { query: { query, limit }, verify: collection('accounts') });
export const loans = (query, limit) => req('GET', '/circulation/loans', { query: { query, limit }, verify: collection('loans') });
export const requests = (query, limit) => req('GET', '/circulation/requests', { query: { query, limit }, verify: collection('requests') });
export const proxiesFor = (query, limit) => req('GET', '/proxiesfor', { query: { query, limit }, verify: collection('proxiesFor') });
export const manualBlocks = (userId) => req('GET', '/manualblocks', { query: { query: `userId==${cqlId(userId)}` }, verify: collection('manualblocks') });
export const lostItemFeesPolicies = (id) => req('GET', '/lost-item-fees-policies', { query: { query: `id==${cqlId(id)}` }, verify: collection('lostItemFeePolicies') });
export const staffSlips = () => req('GET', '/staff-slips-storage/staff-slips', { query: { limit: 1000 }, verify: collection('staffSlips') });

export const noteLinks = (userId) =>
  req('GET', '/note-links/domain/users/type/user/id/{id}', {
    path: { id: userId },
    query: { limit: 10000, order: 'desc', status: 'assigned' },
    verify: collection('notes'),
  });

// ---- calls with a business rule ---------------------------------------------------------------

// The check-out screen's patron lookup: the patron must be found (the UI cannot go on otherwise).
export const findPatron = (userBarcode) => {
  const q = cqlQuote(userBarcode);
  return req('GET', '/users', {
    query: { query: `(barcode==${q} OR externalSystemId==${q} OR id==${q} OR username==${q})` },
    verify: (status, text) => {
      const body = parseJson(text);
      const user = body && Array.isArray(body.users) ? body.users[0] : undefined;
      return verdict(
        [
          ['status is 200', status === 200],
          ['patron found', !!user && typeof user.id === 'string'],
        ],
        user ? { id: user.id, patronGroup: user.patronGroup } : null,
        status === 200 ? (user ? '' : 'no user with that barcode') : errorDetail(status, text),
      );
    },
  });
};

// The check-in screen loads the whole users page without a query (the server's default page size).
export const usersPage = () => req('GET', '/users', { verify: collection('users') });

export const automatedPatronBlocks = (userId) =>
  req('GET', '/automated-patron-blocks/{id}', {
    path: { id: userId },
    query: { limit: 100 },
    verify: (status, text) => {
      const body = parseJson(text);
      return verdict(
        [
          ['status is 200', status === 200],
          ['has automatedPatronBlocks[]', !!body && Array.isArray(body.automatedPatronBlocks)],
        ],
        body ? body.automatedPatronBlocks : null,
        status === 200 ? '' : errorDetail(status, text),
      );
    },
  });

export const servicePoints = () =>
  req('GET', '/service-points', {
    query: { limit: 1000 },
    verify: (status, text) => {
      const body = parseJson(text);
      const sps = body && Array.isArray(body.servicepoints) ? body.servicepoints : null;
      return verdict(
        [
          ['status is 200', status === 200],
          ['has servicepoints[]', !!sps && sps.length > 0],
        ],
        sps,
        status === 200 ? '' : errorDetail(status, text),
      );
    },
  });

// Item lookup by barcode before the POST: the item must exist (its id feeds later queries).
export const itemByBarcode = (barcode, limit) =>
  req('GET', '/inventory/items', {
    query: { query: `barcode==${cqlQuote(barcode)}`, limit },
    verify: (status, text) => {
      const body = parseJson(text);
      const item = body && Array.isArray(body.items) ? body.items[0] : undefined;
      return verdict(
        [
          ['status is 200', status === 200],
          ['item found', !!item && typeof item.id === 'string'],
        ],
        item ? { id: item.id, status: item.status && item.status.name } : null,
        status === 200 ? (item ? '' : 'no item with that barcode') : errorDetail(status, text),
      );
    },
  });

// A check-out succeeded only if a loan was created and is Open: 201, or 200 for mod-circulation's
// "partial success" (loan created, but e.g. the patron action session was not saved).
export const checkOutByBarcode = ({ itemBarcode, userBarcode, servicePointId, loanDate }) =>
  req('POST', '/circulation/check-out-by-barcode', {
    body: { itemBarcode, userBarcode, servicePointId, loanDate },
    verify: (status, text) => {
      const loan = parseJson(text);
      const isLoan = !!loan && typeof loan === 'object' && !Array.isArray(loan.errors);
      return verdict(
        [
          ['status is 201', status === 201 || status === 200],
          ['loan created', isLoan && typeof loan.id === 'string'],
          ['loan is Open', isLoan && !!loan.status && loan.status.name === 'Open'],
        ],
        isLoan ? { loanId: loan.id, userId: loan.userId, itemId: loan.itemId } : null,
        status === 201 || status === 200 ? (isLoan ? '' : 'no loan in the response') : errorDetail(status, text),
      );
    },
  });

// A check-in must return the item no longer checked out; if there was a loan it must be Closed.
// No loan at all is legal (FOLIO answers 200 for an item without an open loan, §3.3).
export const checkInByBarcode = ({ itemBarcode, servicePointId, checkInDate }) =>
  req('POST', '/circulation/check-in-by-barcode', {
    body: { itemBarcode, servicePointId, checkInDate },
    verify: (status, text) => {
      const body = parseJson(text);
      const item = body && body.item;
      const loan = body && body.loan;
      return verdict(
        [
          ['status is 200', status === 200],
          ['item returned', !!item && !!item.status && item.status.name !== 'Checked out'],
          ['loan is Closed', !loan || (!!loan.status && loan.status.name === 'Closed')],
        ],
        body
          ? {
              itemId: item && item.id,
              itemStatus: item && item.status && item.status.name,
              loanId: loan ? loan.id : null,
              userId: loan ? loan.userId : null,
              lostItemPolicyId: loan ? loan.lostItemPolicyId : null,
            }
          : null,
        status === 200 ? '' : errorDetail(status, text),
      );
    },
  });

// Used by teardown: the open loans this run created (a real FOLIO may have other users' loans,
// so the query is narrowed to the run's service point and start time).
export const openLoansSince = (servicePointId, sinceIso, limit, offset) =>
  req('GET', '/circulation/loans', {
    query: {
      query: `status.name=="Open" and checkoutServicePointId==${cqlId(servicePointId)} and loanDate>=${cqlQuote(sinceIso)}`,
      limit,
      offset,
    },
    verify: collection('loans'),
  });

// Every `name` the CICO transactions send (tests/unit/lib-transactions.test.mjs proves the list is
// complete); thresholds use it to compute per-API sub-metrics for the slow-API table and baselines.
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
];
