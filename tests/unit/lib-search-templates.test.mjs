// The 46 templates of PTF's multi-tenant mod-search plan: labels, groups, kinds, and the CQL each
// sends (unquoted terms, limit=100, the right endpoint).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEMPLATES, TEMPLATE_NAMES, searchRequest, LIMIT } from '../../lib/search/templates.js';
import { SEARCH_GROUPS, SEARCH_KINDS } from '../../lib/metrics.js';

const values = {
  authWord: 'water', authSentence: 'water in africa', contribWord: 'Brown', contrib2: 'Brown John',
  boolAnd: 'fusion AND title all aircraft', boolOr: 'fusion OR title all aircraft', boolNot: 'fusion NOT title all aircraft',
  boolSubjects: '(history OR music)', filterSentence: 'water in africa', lang: 'eng', keyword2: 'climate change',
  keyword1: 'climate', subject1: 'washington', subject2: 'washington history', title3: 'water in africa', title1: 'water',
};

test('46 templates, unique low-cardinality labels, 7 groups, 3 kinds', () => {
  assert.equal(TEMPLATES.length, 46);
  assert.equal(new Set(TEMPLATE_NAMES).size, 46);
  const groups = {};
  for (const t of TEMPLATES) groups[t.group] = (groups[t.group] || 0) + 1;
  assert.deepEqual(groups, { authority: 12, boolean: 4, contributors: 7, filter: 4, keyword: 7, subjects: 6, title: 6 });
  for (const t of TEMPLATES) {
    assert.ok(SEARCH_GROUPS.includes(t.group) && SEARCH_KINDS.includes(t.kind), t.name);
    // A label is a template, never a value: no data-file value appears in it.
    for (const v of Object.values(values)) if (v.length > 4) assert.ok(!t.name.includes(v), `${t.name} holds ${v}`);
    // k6's sub-metric selector splits tags at commas and strips quotes at a value's ends.
    assert.ok(!t.name.includes(',') && !/["']$/.test(t.name) && !/[{}]/.test(t.name), t.name);
    assert.match(t.name, /^GET \/search\/(instances:|authorities) /);
  }
});

test('kinds follow the wildcard position: trailing * is wildcard, leading * wildcard-prefix', () => {
  for (const t of TEMPLATES) {
    const cql = t.cql(values);
    const kind = /(^|[ (=])\*\w/.test(cql) ? 'wildcard-prefix' : /\w\*($|[ )])/.test(cql) ? 'wildcard' : 'regular';
    assert.equal(t.kind, kind, `${t.name}: ${cql}`);
  }
  assert.equal(TEMPLATES.filter((t) => t.kind === 'wildcard').length, 4);
  assert.equal(TEMPLATES.filter((t) => t.kind === 'wildcard-prefix').length, 5);
});

test('requests: PTF shapes, unquoted terms, limit=100, authorities vs instances, Accept json', () => {
  const byName = Object.fromEntries(TEMPLATES.map((t) => [t.name, t]));
  const q = (name) => {
    const r = searchRequest(byName[name], values);
    const u = new URL(`http://x${r.url}`);
    assert.equal(u.searchParams.get('limit'), String(LIMIT));
    return { path: u.pathname, query: u.searchParams.get('query'), r };
  };
  let x = q('GET /search/authorities keyword all *randomword*');
  assert.deepEqual([x.path, x.query], ['/search/authorities', 'keyword all *water*']);
  x = q('GET /search/instances: contributors == 2random words');
  assert.deepEqual([x.path, x.query], ['/search/instances', 'contributors == Brown John']);
  assert.equal(x.r.name, 'GET /search/instances: contributors == 2random words');
  assert.deepEqual(x.r.tags, { group: 'contributors', kind: 'regular' });
  assert.equal(x.r.accept, 'application/json');
  assert.equal(q('GET /search/instances: subjects all randomword NOT title all randomword').query, 'subjects all fusion NOT title all aircraft');
  assert.equal(q('GET /search/instances: subjects = (randomword OR randomword)').query, 'subjects = (history OR music)');
  assert.equal(q('GET /search/instances: title all *1randomword').query, 'title all *water');
  assert.equal(q('GET /search/instances: keyword = 1word*').query, 'keyword = climate*');
  assert.equal(q('GET /search/instances: keyword all random sentence AND languages == randomlang').query, 'keyword all water in africa AND languages == eng');
  assert.equal(
    q('GET /search/instances: languages == (lang) AND items.status.name == ("Available" OR "In transit")').query,
    'languages == (eng) AND items.status.name == (Available OR In transit)',
  );
  // Every template's CQL uses its values and no placeholder is left.
  for (const t of TEMPLATES) assert.ok(!/undefined/.test(t.cql(values)), t.name);
});

test('verdict: 200 with an integer totalRecords passes; anything else fails with a reason', () => {
  const r = searchRequest(TEMPLATES[0], values);
  assert.equal(r.verify(200, '{"totalRecords": 0, "authorities": []}').ok, true);
  assert.equal(r.verify(200, '{"totalRecords": 3, "authorities": []}').value, 3);
  const noCount = r.verify(200, '{"authorities": []}');
  assert.deepEqual([noCount.ok, noCount.failed], [false, ['has totalRecords']]);
  const bad = r.verify(400, '{"errors":[{"message":"Failed to parse CQL query"}]}');
  assert.equal(bad.ok, false);
  assert.match(bad.detail, /400 Failed to parse CQL/);
  assert.equal(r.verify(200, 'not json').ok, false);
  assert.deepEqual(r.checkNames, [`${TEMPLATES[0].name}: status is 200`, `${TEMPLATES[0].name}: has totalRecords`]);
});
