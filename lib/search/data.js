// Query values of the mod-search workflow: PTF's data files (one value per row, no header) and
// the deterministic generator of folio-perf's own copies. Pure: tools/search-data.mjs writes the
// files, lib/k6/search.js reads them in init (open + SharedArray) and draws one row of each file
// per iteration, as PTF's CSV Data Set elements (shared by all threads, recycled) did.

// The words: the Debian package wamerican's list (/usr/share/dict/american-english), lines of
// 3-12 lower-case letters, deduplicated, in file order: the same list minifolio's seed draws
// titles, contributors and subjects from, so most single-word queries find records.
export const WORDLIST = '/usr/share/dict/american-english';
// Words CQL reads as booleans or relations (cql-java's parser: and, or, not, prox, sortby; any,
// all, within, encloses, exact, adj): unquoted, as PTF sends terms, they would change the query.
export const CQL_RESERVED = Object.freeze(['and', 'or', 'not', 'prox', 'sortby', 'any', 'all', 'within', 'encloses', 'exact', 'adj']);
// The instance languages minifolio's seed uses (MARC codes).
export const LANGUAGES = Object.freeze(['eng', 'fre', 'ger', 'ita', 'spa', 'ukr', 'rus']);

export function vocabulary(text) {
  const seen = new Set();
  const out = [];
  for (const line of String(text).split('\n')) {
    const w = line.trim();
    if (!/^[a-z]{3,12}$/.test(w) || seen.has(w) || CQL_RESERVED.includes(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

// mulberry32: a small seeded PRNG, the same numbers on every machine and node version.
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const cap = (w) => w[0].toUpperCase() + w.slice(1);

/**
 * The files PTF's multi-tenant plan reads, in its shapes, and which iteration values each gives.
 * make(pick): one row of folio-perf's generated file; read(row): the value(s) of a row of the file
 * as PTF's or ours (full CQL rows like `keyword all "affected ronald"` give their term).
 */
export const FILES = Object.freeze([
  { file: 'auth_queries.csv', make: (w) => w(), put: (v, r) => (v.authWord = term(r)) },
  { file: 'auth_queries_sentence.csv', make: (w) => `${w()} ${w()} ${w()}`, put: (v, r) => (v.authSentence = term(r)) },
  { file: 'contributors_queries_word.csv', make: (w) => cap(w()), put: (v, r) => (v.contribWord = term(r)) },
  // PTF's "Brown John": surname and first name, without the comma of the stored "Brown, John".
  { file: 'contributors_queries_2_words.csv', make: (w) => `${cap(w())} ${cap(w())}`, put: (v, r) => (v.contrib2 = term(r)) },
  // PTF's pre-built boolean fragments, sent after `subjects all` (or `subjects =`).
  { file: 'bool_queries_and.csv', make: (w) => `${w()} AND title all ${w()}`, put: (v, r) => (v.boolAnd = r) },
  { file: 'bool_queries_or.csv', make: (w) => `${w()} OR title all ${w()}`, put: (v, r) => (v.boolOr = r) },
  { file: 'bool_queries_not.csv', make: (w) => `${w()} NOT title all ${w()}`, put: (v, r) => (v.boolNot = r) },
  { file: 'bool_queries_subjects.csv', make: (w) => `(${w()} OR ${w()})`, put: (v, r) => (v.boolSubjects = r) },
  { file: 'filter_queries_sentence.csv', make: (w) => `${w()} ${w()} ${w()}`, put: (v, r) => (v.filterSentence = term(r)) },
  { file: 'filter_queries_languages.csv', make: (w, rnd) => LANGUAGES[Math.floor(rnd() * LANGUAGES.length)], put: (v, r) => (v.lang = term(r)) },
  {
    file: 'keyword_queries.csv',
    make: (w) => `keyword all "${w()} ${w()}"`,
    put: (v, r) => {
      v.keyword2 = term(r);
      v.keyword1 = firstWord(v.keyword2);
    },
  },
  {
    file: 'subject_queries.csv',
    make: (w) => `subjects all "${w()}"`,
    put: (v, r, next) => {
      v.subject1 = firstWord(term(r));
      v.subject2 = `${v.subject1} ${firstWord(term(next))}`;
    },
  },
  {
    file: 'title_queries_sentence3words.csv',
    make: (w) => `${w()} ${w()} ${w()}`,
    put: (v, r) => {
      v.title3 = term(r);
      v.title1 = firstWord(v.title3);
    },
  },
]);

export const FILE_NAMES = Object.freeze(FILES.map((f) => f.file));
export const DEFAULT_ROWS = 1000;
export const DEFAULT_SEED = 20220311;

/** folio-perf's files: Map file -> text (one value per row, no header), the same for the same input. */
export function generateFiles(words, { rows = DEFAULT_ROWS, seed = DEFAULT_SEED } = {}) {
  if (!Array.isArray(words) || words.length < 100) throw new Error(`the word list has ${words ? words.length : 0} usable words (need 100); fix: install the wamerican package (make deps)`);
  if (!Number.isInteger(rows) || rows < 1 || rows > 1000000) throw new Error(`rows ${rows} is not a count; fix: use 1..1000000`);
  const out = new Map();
  FILES.forEach((f, i) => {
    // One stream per file: adding a file does not change the others.
    const rnd = prng(seed + i * 7919);
    const w = () => words[Math.floor(rnd() * words.length)];
    const lines = [];
    for (let r = 0; r < rows; r++) lines.push(f.make(w, rnd));
    out.set(f.file, lines.join('\n') + '\n');
  });
  return out;
}

// A row's term: PTF's keyword and subject files hold whole CQL clauses (`keyword all "x y"`);
// the others a bare value, perhaps quoted.
const CLAUSE = /^[A-Za-z][\w.]*\s+(?:all|any|adj|==|=|<>)\s+"((?:[^"\\]|\\.)*)"$/;
export function term(row) {
  const m = CLAUSE.exec(row);
  if (m) return m[1].replace(/\\(.)/g, '$1');
  if (row.length >= 2 && row[0] === '"' && row[row.length - 1] === '"') return row.slice(1, -1).replace(/""/g, '"');
  return row;
}

function firstWord(s) {
  const i = s.indexOf(' ');
  return i < 0 ? s : s.slice(0, i);
}

/** The values of one file's text: rows trimmed (BOM, CR), blank rows skipped; throws when empty. */
export function parseRows(text, file) {
  const rows = [];
  for (const line of String(text).replace(/^\uFEFF/, '').split('\n')) {
    const r = line.replace(/\r$/, '').trim();
    if (r !== '') rows.push(r);
  }
  if (rows.length === 0) throw new Error(`${file} has no rows; fix: fill it with one query value per row (or regenerate: make search-data)`);
  return rows;
}

/**
 * One iteration's values: row i of every file (rows recycle, as PTF's CSV Data Set).
 * @param {Array<{file: string, rows: string[]}>} tables in FILES order
 */
export function valuesAt(tables, i) {
  const v = {};
  for (let k = 0; k < FILES.length; k++) {
    const rows = tables[k];
    const n = rows.length;
    FILES[k].put(v, rows[i % n], rows[(i + 1) % n]);
  }
  return v;
}
