// PTF's multi-tenant mod-search plan (perf-testing: api-scripts/search/mod-search_multitenant):
// 7 fragments run in a row each iteration, 46 request templates. Each template is named by the
// label of the Lotus mod-search report (the `name` tag: low-cardinality, the words stand for
// values drawn from the data files), tagged with its fragment (`group`) and `kind`:
//   regular; wildcard = a trailing * (w*); wildcard-prefix = a leading * (*w, *w*).
// Terms are sent unquoted, as PTF's plan builds them into the URL (CQL then reads a run of words
// as one term: `keyword all fusion pepper` is the term "fusion pepper"), with limit=100 and
// Accept: application/json. Every answer must be 200 with an integer totalRecords (PTF asserted
// the status only; the count proves mod-search answered the query, not just the gateway).
// Pure: lib/k6/search.js sends the requests through lib/k6/folio.js's client.

import { endpoint, request } from '../folio.js';
import { SEARCH_GROUPS, SEARCH_KINDS } from '../metrics.js';

export const LIMIT = 100;
const INSTANCES = '/search/instances';
const AUTHORITIES = '/search/authorities';

// The values one iteration draws (lib/search/data.js names the file of each):
//   authWord, authSentence; contribWord, contrib2; boolAnd, boolOr, boolNot, boolSubjects;
//   filterSentence, lang; keyword2 (two words), keyword1 (one word); subject1, subject2;
//   title3 (three words), title1 (one word).
// [label, group, kind, cql(v)]; a label starting with "GET /search/authorities" goes there.
const T = [
  // authority: /search/authorities, `keyword` over every heading
  ['GET /search/authorities keyword <> random sentence', 'authority', 'regular', (v) => `keyword <> ${v.authSentence}`],
  ['GET /search/authorities keyword <> randomword', 'authority', 'regular', (v) => `keyword <> ${v.authWord}`],
  ['GET /search/authorities keyword = *random sentence*', 'authority', 'wildcard-prefix', (v) => `keyword = *${v.authSentence}*`],
  ['GET /search/authorities keyword = random sentence', 'authority', 'regular', (v) => `keyword = ${v.authSentence}`],
  ['GET /search/authorities keyword = randomword', 'authority', 'regular', (v) => `keyword = ${v.authWord}`],
  ['GET /search/authorities keyword == random sentence', 'authority', 'regular', (v) => `keyword == ${v.authSentence}`],
  ['GET /search/authorities keyword == randomword', 'authority', 'regular', (v) => `keyword == ${v.authWord}`],
  ['GET /search/authorities keyword all *randomword*', 'authority', 'wildcard-prefix', (v) => `keyword all *${v.authWord}*`],
  ['GET /search/authorities keyword all random sentence', 'authority', 'regular', (v) => `keyword all ${v.authSentence}`],
  ['GET /search/authorities keyword all randomword', 'authority', 'regular', (v) => `keyword all ${v.authWord}`],
  ['GET /search/authorities keyword any random sentence', 'authority', 'regular', (v) => `keyword any ${v.authSentence}`],
  ['GET /search/authorities keyword any randomword', 'authority', 'regular', (v) => `keyword any ${v.authWord}`],
  // boolean: PTF's pre-built fragments ("fusion AND title all aircraft") after `subjects all`
  ['GET /search/instances: subjects = (randomword OR randomword)', 'boolean', 'regular', (v) => `subjects = ${v.boolSubjects}`],
  ['GET /search/instances: subjects all randomword AND title all randomword', 'boolean', 'regular', (v) => `subjects all ${v.boolAnd}`],
  ['GET /search/instances: subjects all randomword NOT title all randomword', 'boolean', 'regular', (v) => `subjects all ${v.boolNot}`],
  ['GET /search/instances: subjects all randomword OR title all randomword', 'boolean', 'regular', (v) => `subjects all ${v.boolOr}`],
  // contributors
  ['GET /search/instances: contributors <> 2random words', 'contributors', 'regular', (v) => `contributors <> ${v.contrib2}`],
  ['GET /search/instances: contributors = *randomword', 'contributors', 'wildcard-prefix', (v) => `contributors = *${v.contribWord}`],
  ['GET /search/instances: contributors = randomword*', 'contributors', 'wildcard', (v) => `contributors = ${v.contribWord}*`],
  ['GET /search/instances: contributors == 2random words', 'contributors', 'regular', (v) => `contributors == ${v.contrib2}`],
  ['GET /search/instances: contributors all 2random words', 'contributors', 'regular', (v) => `contributors all ${v.contrib2}`],
  ['GET /search/instances: contributors all randomword', 'contributors', 'regular', (v) => `contributors all ${v.contribWord}`],
  ['GET /search/instances: contributors any 2random words', 'contributors', 'regular', (v) => `contributors any ${v.contrib2}`],
  // filter: term fields (languages, items.status.name), and a keyword search narrowed by language
  ['GET /search/instances: keyword all random sentence AND languages == randomlang', 'filter', 'regular', (v) => `keyword all ${v.filterSentence} AND languages == ${v.lang}`],
  ['GET /search/instances: languages == (lang) AND items.status.name == ("Available" OR "In transit")', 'filter', 'regular', (v) => `languages == (${v.lang}) AND items.status.name == (Available OR In transit)`],
  ['GET /search/instances: languages == lang', 'filter', 'regular', (v) => `languages == ${v.lang}`],
    // k6 strips quotes at the ends of a tag value in a threshold key, so a label ending in a quote
  // could not select its own sub-metric: the report's `== "Available"` is written as PTF sends it.
  ['GET /search/instances: languages == lang AND items.status.name == Available', 'filter', 'regular', (v) => `languages == ${v.lang} AND items.status.name == Available`],
  // keyword: title, alternative titles, series, contributors
  ['GET /search/instances: keyword <> 1word', 'keyword', 'regular', (v) => `keyword <> ${v.keyword1}`],
  ['GET /search/instances: keyword <> random 2words', 'keyword', 'regular', (v) => `keyword <> ${v.keyword2}`],
  ['GET /search/instances: keyword = 1word*', 'keyword', 'wildcard', (v) => `keyword = ${v.keyword1}*`],
  ['GET /search/instances: keyword = random 2words', 'keyword', 'regular', (v) => `keyword = ${v.keyword2}`],
  ['GET /search/instances: keyword == random 2words', 'keyword', 'regular', (v) => `keyword == ${v.keyword2}`],
  ['GET /search/instances: keyword all random 2words', 'keyword', 'regular', (v) => `keyword all ${v.keyword2}`],
  ['GET /search/instances: keyword any random 2words', 'keyword', 'regular', (v) => `keyword any ${v.keyword2}`],
  // subjects
  ['GET /search/instances: subjects <> 1randomword', 'subjects', 'regular', (v) => `subjects <> ${v.subject1}`],
  ['GET /search/instances: subjects = *1randomword', 'subjects', 'wildcard-prefix', (v) => `subjects = *${v.subject1}`],
  ['GET /search/instances: subjects = 1randomword*', 'subjects', 'wildcard', (v) => `subjects = ${v.subject1}*`],
  ['GET /search/instances: subjects == 1randomword', 'subjects', 'regular', (v) => `subjects == ${v.subject1}`],
  ['GET /search/instances: subjects all 1randomword', 'subjects', 'regular', (v) => `subjects all ${v.subject1}`],
  ['GET /search/instances: subjects any 2random words', 'subjects', 'regular', (v) => `subjects any ${v.subject2}`],
  // title
  ['GET /search/instances: title <> 3 word sentence', 'title', 'regular', (v) => `title <> ${v.title3}`],
  ['GET /search/instances: title == 3 word sentence', 'title', 'regular', (v) => `title == ${v.title3}`],
  ['GET /search/instances: title all *1randomword', 'title', 'wildcard-prefix', (v) => `title all *${v.title1}`],
  ['GET /search/instances: title all 1randomword*', 'title', 'wildcard', (v) => `title all ${v.title1}*`],
  ['GET /search/instances: title all 3 word sentence', 'title', 'regular', (v) => `title all ${v.title3}`],
  ['GET /search/instances: title any 3 word sentence', 'title', 'regular', (v) => `title any ${v.title3}`],
];

// PTF ran the fragments in this order: auth, boolean, contributors, filter, keyword, subject, title.
export const TEMPLATES = Object.freeze(
  T.map(([name, group, kind, cql]) => {
    if (!SEARCH_GROUPS.includes(group) || !SEARCH_KINDS.includes(kind)) throw new Error(`template ${name}: bad group/kind`);
    const path = name.startsWith(`GET ${AUTHORITIES}`) ? AUTHORITIES : INSTANCES;
    const api = endpoint('GET', path, {
      name,
      accept: 'application/json',
      tags: { group, kind },
      rules: ['status is 200', 'has totalRecords'],
      // A count, not the records: a wildcard search may legitimately find nothing.
      judge: (status, doc) => [status === 200, Number.isInteger(doc.get('totalRecords'))],
      value: (doc) => doc.get('totalRecords'),
    });
    return Object.freeze({ name, group, kind, path, cql, api });
  }),
);

export const TEMPLATE_NAMES = Object.freeze(TEMPLATES.map((t) => t.name));

/** The request of one template for one iteration's values. */
export function searchRequest(template, values) {
  return request(template.api, { query: ['query', template.cql(values), 'limit', LIMIT] });
}

// ---- what the searched tenant's index holds ---------------------------------------------------
// A template on an empty index answers at once with totalRecords 0: its time measures an empty
// answer, not a search. Setup counts each searched path's records once (mod-search's match-all
// query, cql.allRecords=1, limit 0) and names the templates that ran on nothing.

export const INDEX_PATHS = Object.freeze([...new Set(TEMPLATES.map((t) => t.path))]);
const RECORDS = { [INSTANCES]: 'instance', [AUTHORITIES]: 'authority' };
const COUNTS = new Map(
  INDEX_PATHS.map((p) => [
    p,
    endpoint('GET', p, {
      name: `GET ${p} (index count)`,
      accept: 'application/json',
      rules: ['status is 200', 'has totalRecords'],
      judge: (status, doc) => [status === 200, Number.isInteger(doc.get('totalRecords'))],
      value: (doc) => doc.get('totalRecords'),
    }),
  ]),
);

/** The request counting the records behind one searched path. */
export const indexCount = (path) => request(COUNTS.get(path), { query: ['query', 'cql.allRecords=1', 'limit', 0] });

/**
 * The searched paths whose index is empty, from {path: count} (a count not known is not judged):
 * [{path, records (what the index holds), groups, templates (how many)}].
 */
export function emptyIndexes(counts) {
  const out = [];
  for (const path of INDEX_PATHS) {
    if (counts[path] !== 0) continue;
    const ts = TEMPLATES.filter((t) => t.path === path);
    out.push({ path, records: RECORDS[path], groups: [...new Set(ts.map((t) => t.group))], templates: ts.length });
  }
  return out;
}

/** The warning a run prints at its start for one empty index (its cause and the fix). */
export function emptyIndexWarning(e, tenant) {
  return `tenant ${tenant} has no ${e.records} records in its search index (GET ${e.path}?query=cql.allRecords=1 answered totalRecords 0): ` +
    `the ${e.templates} templates of group ${e.groups.join(', ')} will time empty answers, not searches; ` +
    `fix: load ${e.records} records and index them (minifolio: seed with --authorities, then the search index), or read those rows as empty answers`;
}
