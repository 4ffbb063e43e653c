// How a FOLIO API call is described and judged, whatever the workflow: a request description
// (method, URL, body, the low-cardinality `name` tag) plus the business rule each response must
// satisfy, CQL quoting, and the response document the rules read. Pure: lib/k6/folio.js sends
// the requests; the workflows' calls are built on it (lib/cico/api.js, lib/search/templates.js).
// Every request carries a `name` (method + templated path, never an id or a query value),
// because InfluxDB 1.x rejects a tag past 100,000 values.
//
// Everything here runs for every request of every VU, so it is written for k6's JavaScript VM,
// where each object, closure and for-in costs about a microsecond: API descriptions and check
// names are built once, at module load, and the per-request work is string concatenation and a
// few lookups in the response (make bench-k6 measures what the scripts cost).

// CQL string literal: quote and escape what CQL treats specially (RMB README "CQL: Relations").
const CQL_SPECIAL = /[\\"*?^]/;
export function cqlQuote(value) {
  const s = String(value);
  return '"' + (CQL_SPECIAL.test(s) ? s.replace(/[\\"*?^]/g, (c) => '\\' + c) : s) + '"';
}

// UUID-looking values are sent unquoted as PTF/the UI do; anything else is quoted so a hostile
// barcode cannot change the query.
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export function cqlId(value) {
  return UUID.test(String(value)) ? String(value) : cqlQuote(value);
}

// A term the UI writes unquoted (ui-checkin 11+: barcode==<value>): kept bare when it is a plain
// word, quoted otherwise, so a barcode with spaces or CQL operators cannot change the query.
const CQL_WORD = /^[A-Za-z0-9_.-]+$/;
export function cqlWord(value) {
  const s = String(value);
  return CQL_WORD.test(s) ? s : cqlQuote(s);
}

// A version 4 UUID from a source of uniform numbers in [0, 1) (Math.random): the id a UI makes
// for a session of its own (ui-checkin's check-in session), not a secret.
export function randomUuid(random = Math.random) {
  const hex = (n) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(random() * 4)]}${hex(3)}-${hex(12)}`;
}

// The query string of flat [key, value, key, value, ...] pairs (not an object: for-in costs k6's VM
// ~3 us a request, Object.entries ~9 us). Only values are encoded: keys are this file's literal
// parameter names, numbers need no encoding; undefined and null values are left out.
export function queryString(pairs) {
  let s = '';
  for (let i = 0; i < pairs.length; i += 2) {
    const v = pairs[i + 1];
    if (v === undefined || v === null) continue;
    s += (s === '' ? '?' : '&') + pairs[i] + '=' + (typeof v === 'number' ? v : encodeURIComponent(String(v)));
  }
  return s;
}

// A path template split once into literal parts and {parameter} names, so filling it per request is
// concatenation: '/a/{id}/b' -> ['/a/', 'id', '/b'] (odd indexes are parameter names).
function compileTemplate(template) {
  return template.split(/\{(\w+)\}/);
}

function fillTemplate(parts, pathParams, template) {
  if (parts.length === 1) return parts[0];
  let s = parts[0];
  for (let i = 1; i < parts.length; i += 2) {
    const v = pathParams === undefined ? undefined : pathParams[parts[i]];
    if (v === undefined) throw new Error(`missing path parameter ${parts[i]} for ${template}`);
    s += encodeURIComponent(String(v)) + parts[i + 1];
  }
  return s;
}

export function parseJson(text) {
  if (typeof text !== 'string' || text === '') return null;
  try {
    return JSON.parse(text);
  } catch (_) {
    return null;
  }
}

// ---- responses ---------------------------------------------------------------------------------
// A rule reads the response through a document: get(path) is the value at a dot-separated path
// ('totalRecords', 'users.0.id', 'item.status.name'; '<array>.#' is the array's length) or
// undefined (also when the body is not JSON), and text is the raw body. In k6, get is
// res.json(path), answered by gjson in Go without building a JavaScript object per response
// (JSON.parse and the garbage it left were the largest part of the scripts' own CPU);
// jsonDocument is the same contract in plain JavaScript, for node --test and bodies given as text.

export function jsonDocument(text) {
  let root; // undefined until parsed; null when the body is not JSON
  return {
    text: typeof text === 'string' ? text : '',
    get(path) {
      if (root === undefined) root = parseJson(text);
      let v = root;
      if (v === null) return undefined;
      const segs = path.split('.');
      for (let i = 0; i < segs.length; i++) {
        if (v === null || typeof v !== 'object') return undefined;
        const seg = segs[i];
        if (Array.isArray(v)) {
          if (seg === '#') v = v.length;
          else if (/^\d+$/.test(seg)) v = v[Number(seg)];
          else return undefined;
        } else {
          if (!Object.prototype.hasOwnProperty.call(v, seg)) return undefined;
          v = v[seg];
        }
      }
      return v;
    },
  };
}

function asDocument(body) {
  return body !== null && typeof body === 'object' && typeof body.get === 'function' ? body : jsonDocument(body);
}

// The first error message of a FOLIO 422 body, or a snippet of a text body, for the log only.
export function errorDetail(status, bodyText) {
  const body = parseJson(bodyText);
  if (body && Array.isArray(body.errors) && body.errors.length && body.errors[0].message) return `${status} ${body.errors[0].message}`;
  const t = typeof bodyText === 'string' ? bodyText.replace(/\s+/g, ' ').slice(0, 120) : '';
  return `${status}${t ? ' ' + t : ''}`;
}

const NONE = Object.freeze([]);

/**
 * One API of the plan and what every answer must satisfy. rules: short reasons without values
 * (they become the k6 check names "<name>: <rule>", built here once); the first rule is the status
 * one. judge(status, doc) -> one boolean per rule; value(doc) -> what later requests need, asked
 * only when every rule passed; empty: the log text when the status was right but the second rule
 * (the record is there) failed; other failures log the failed rules' names.
 */
// name: the `name` tag, method + template unless given (mod-search's report labels); accept: the
// Accept header when not the browser's; tags: more constant tags of the API (search: group, kind).
// checkName: the one check a passing request records, its rules together (see lib/k6/folio.js).
export function endpoint(method, template, { rules, judge, value, empty = '', name = `${method} ${template}`, accept = null, tags = null }) {
  const checkNames = rules.map((r) => `${name}: ${r}`);
  const checkName = rules.length === 1 ? checkNames[0] : `${name}: ${rules.join(', ')}`;
  return { method, template, parts: compileTemplate(template), name, rules, checkNames, checkName, judge, value, empty, accept, tags };
}

// A request's verdict: { ok, results (one boolean per rule), failed (rule names), value, detail }.
function verdictOf(api, status, body) {
  const doc = asDocument(body);
  const results = api.judge(status, doc);
  let failed = NONE;
  for (let i = 0; i < results.length; i++) {
    if (!results[i]) {
      if (failed === NONE) failed = [];
      failed.push(api.rules[i]);
    }
  }
  if (failed === NONE) return { ok: true, results, failed, value: api.value ? api.value(doc) : undefined, detail: '' };
  let detail = '';
  if (!results[0]) detail = errorDetail(status, doc.text);
  else if (results.length > 1 && !results[1]) detail = api.empty;
  return { ok: false, results, failed, value: null, detail };
}

// A request to send: query is flat [key, value, ...] pairs (see queryString); verify(status, body)
// takes the body as text or as a document (above).
export function request(api, { path, query, body } = {}) {
  return {
    method: api.method,
    name: api.name,
    accept: api.accept,
    tags: api.tags,
    checkNames: api.checkNames,
    checkName: api.checkName,
    url: fillTemplate(api.parts, path, api.template) + (query === undefined ? '' : queryString(query)),
    body: body === undefined ? null : JSON.stringify(body),
    verify: (status, responseBody) => verdictOf(api, status, responseBody),
  };
}

// A FOLIO collection page: {"<key>": [...], "totalRecords": n}.
export function collection(template, key, value) {
  const count = `${key}.#`;
  return endpoint('GET', template, {
    rules: ['status is 200', 'has totalRecords', `has ${key}[]`],
    judge: (status, doc) => [status === 200, Number.isInteger(doc.get('totalRecords')), typeof doc.get(count) === 'number'],
    value,
  });
}

// CORS preflight the browser sends before the real call; Okapi answers it itself. Named by the
// template of the call it precedes so preflights can be compared with their calls.
const preflights = new Map();
export function preflight(real) {
  let api = preflights.get(real.name);
  if (api === undefined) {
    api = endpoint('OPTIONS', real.name.slice(real.name.indexOf(' ') + 1), {
      rules: ['preflight answered 2xx'],
      judge: (status) => [status >= 200 && status < 300],
    });
    preflights.set(real.name, api);
  }
  return {
    method: 'OPTIONS',
    name: api.name,
    checkNames: api.checkNames,
    checkName: api.checkName,
    url: real.url,
    body: null,
    preflightFor: real.method,
    verify: (status) => verdictOf(api, status, ''),
  };
}
