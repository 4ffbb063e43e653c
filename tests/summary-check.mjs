// Reads a report's Markdown as a wiki reader would and checks its Summary against its tables:
// every finding cites a numbered table (and a row of it) that exists, and every number the finding
// states appears in that row (in the table, for a finding about a whole table). Identifiers in
// `code` (APIs, modules, releases, templates, metrics) and stat names such as p95 are not figures.
// Used by the unit tests (recorded runs) and the end-to-end tests (real runs).
import assert from 'node:assert/strict';

const unescapeMd = (s) => s.replace(/\\\|/g, '|').replace(/&lt;/g, '<').replace(/&amp;/g, '&').replace(/\\\\/g, '\\');

/** The numbers a text states: not inside `code`, not glued to a letter (p95, R²), signs and % left off. */
export function numbersOf(text) {
  return (String(text).replace(/`[^`]*`/g, ' ').match(/(?<![\p{L}\d.])\d+(?:\.\d+)?/gu) || []).map((n) => n);
}

/** The Summary's items: {text, table, row, cannot, line}. */
export function summaryItems(md) {
  const lines = md.split('\n');
  const start = lines.indexOf('## Summary');
  assert.ok(start >= 0, 'the report has a Summary section');
  const out = [];
  for (let i = start + 1; i < lines.length && !lines[i].startsWith('## '); i++) {
    const l = lines[i];
    if (!l.startsWith('- ')) continue;
    if (l.startsWith('- _Not judged: ')) {
      out.push({ cannot: true, line: l, text: l.slice(2) });
      continue;
    }
    const m = /^- (.*) \(Table (\d+)(?:, row “([^”]*)”)?\)$/.exec(l);
    assert.ok(m, `a finding names its table: ${l}`);
    out.push({ cannot: false, line: l, text: m[1], table: Number(m[2]), row: m[3] === undefined ? null : unescapeMd(m[3]) });
  }
  return out;
}

/** Table N of the Markdown: caption, header and rows (cells unescaped). */
export function tableNumbered(md, n) {
  const lines = md.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`**Table ${n}. `));
  assert.ok(at >= 0, `Table ${n} is in the report`);
  const rows = [];
  for (let i = at + 2; i < lines.length && lines[i].startsWith('|'); i++) rows.push(lines[i].slice(2, -2).split(/ (?<!\\)\| /).map(unescapeMd));
  return { caption: lines[at], head: rows[0] || [], rows: rows.slice(2) };
}

/** The row a finding cites: the one whose leading cells, joined by ", ", are its label. */
export function citedRow(t, label) {
  return t.rows.find((r) => [1, 2, 3].some((k) => r.slice(0, k).join(', ') === label));
}

/**
 * Checks every finding of the Summary against what it cites; returns the findings. Fails with the
 * finding and the row when a number is missing.
 */
export function checkSummary(md) {
  const items = summaryItems(md);
  assert.ok(items.length > 0, 'the Summary has findings');
  for (const f of items.filter((x) => !x.cannot)) {
    const t = tableNumbered(md, f.table);
    const where = f.row === null ? [t.caption, ...t.rows.flat()] : citedRow(t, f.row);
    assert.ok(where, `${f.line}: Table ${f.table} has no row “${f.row}” (${t.caption})`);
    const have = new Set(where.flatMap((c) => numbersOf(c)));
    for (const n of numbersOf(f.text)) assert.ok(have.has(n), `${f.line}: ${n} is not in ${f.row === null ? `Table ${f.table}` : `its row: | ${where.join(' | ')} |`}`);
  }
  return items;
}
