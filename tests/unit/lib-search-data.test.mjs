// Query files: the vocabulary, the deterministic generator, PTF's shapes read back, one value set
// per iteration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { vocabulary, generateFiles, parseRows, valuesAt, term, FILES, FILE_NAMES, CQL_RESERVED, LANGUAGES, prng } from '../../lib/search/data.js';

const words = Array.from({ length: 300 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`.replace(/\d/g, 'q'));

test('vocabulary: 3-12 lower-case letters, deduplicated, file order, CQL words left out', () => {
  const text = 'apple\nApple\nab\nbanana\napple\nand\nnot\nsortby\nit\'s\ncherry\nabcdefghijklm\nprox\n';
  assert.deepEqual(vocabulary(text), ['apple', 'banana', 'cherry']);
  for (const w of CQL_RESERVED) assert.deepEqual(vocabulary(w), []);
});

test('the generator is deterministic and every file has the asked rows in its shape', () => {
  const a = generateFiles(words, { rows: 50, seed: 7 });
  const b = generateFiles(words, { rows: 50, seed: 7 });
  assert.deepEqual([...a], [...b]);
  assert.notDeepEqual([...generateFiles(words, { rows: 50, seed: 8 })], [...a]);
  assert.deepEqual([...a.keys()], FILE_NAMES);
  for (const [file, text] of a) assert.equal(parseRows(text, file).length, 50, file);
  const rows = (f) => parseRows(a.get(f), f);
  assert.ok(rows('auth_queries.csv').every((r) => /^[a-z]+$/.test(r)));
  assert.ok(rows('auth_queries_sentence.csv').every((r) => /^[a-z]+ [a-z]+ [a-z]+$/.test(r)));
  assert.ok(rows('contributors_queries_2_words.csv').every((r) => /^[A-Z][a-z]+ [A-Z][a-z]+$/.test(r)));
  assert.ok(rows('bool_queries_and.csv').every((r) => /^[a-z]+ AND title all [a-z]+$/.test(r)));
  assert.ok(rows('bool_queries_subjects.csv').every((r) => /^\([a-z]+ OR [a-z]+\)$/.test(r)));
  assert.ok(rows('filter_queries_languages.csv').every((r) => LANGUAGES.includes(r)));
  assert.ok(rows('keyword_queries.csv').every((r) => /^keyword all "[a-z]+ [a-z]+"$/.test(r)));
  assert.ok(rows('subject_queries.csv').every((r) => /^subjects all "[a-z]+"$/.test(r)));
  // Adding rows keeps the first ones (one stream per file).
  const more = generateFiles(words, { rows: 60, seed: 7 });
  assert.ok(more.get('auth_queries.csv').startsWith(a.get('auth_queries.csv')));
  assert.throws(() => generateFiles(words.slice(0, 10)), /fix: install the wamerican package/);
});

test("PTF's rows read back: whole CQL clauses give their term, quotes, BOM and CRLF are stripped", () => {
  assert.equal(term('keyword all "affected ronald"'), 'affected ronald');
  assert.equal(term('subjects all "personal"'), 'personal');
  assert.equal(term('"Brown John"'), 'Brown John');
  assert.equal(term('eng'), 'eng');
  assert.deepEqual(parseRows('\uFEFFeng\r\n\r\nita\r\n', 'f'), ['eng', 'ita']);
  assert.throws(() => parseRows('\n \n', 'x.csv'), /x\.csv has no rows; fix: /);
});

test('one value set per iteration, rows recycled', () => {
  const files = generateFiles(words, { rows: 3, seed: 1 });
  const tables = FILE_NAMES.map((f) => parseRows(files.get(f), f));
  const v0 = valuesAt(tables, 0);
  for (const k of ['authWord', 'authSentence', 'contribWord', 'contrib2', 'boolAnd', 'boolOr', 'boolNot', 'boolSubjects', 'filterSentence', 'lang', 'keyword1', 'keyword2', 'subject1', 'subject2', 'title1', 'title3']) {
    assert.equal(typeof v0[k], 'string', k);
    assert.ok(v0[k].length > 0 && !v0[k].includes('"'), k);
  }
  assert.equal(v0.keyword1, v0.keyword2.split(' ')[0]);
  assert.equal(v0.title1, v0.title3.split(' ')[0]);
  assert.equal(v0.subject2.split(' ').length, 2);
  assert.deepEqual(valuesAt(tables, 3), v0);
  assert.notDeepEqual(valuesAt(tables, 1), v0);
  assert.equal(FILES.length, 13);
});

test('prng: the same seed, the same numbers, in [0, 1)', () => {
  const a = prng(42);
  const b = prng(42);
  for (let i = 0; i < 100; i++) {
    const x = a();
    assert.equal(x, b());
    assert.ok(x >= 0 && x < 1);
  }
});
