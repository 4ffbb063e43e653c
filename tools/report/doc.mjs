// The report document's tables as data: a table is built from its rows' raw values and its
// columns' formatters, so that it keeps both the cells the pages show and the numbers behind them
// (a comparison with another run puts the two side by side: against.mjs), and every row has a
// key and a label the summary's findings cite. Tables are numbered in the order the pages show
// them, so a finding names "Table 4, row “20, check-out”" the same way in Markdown and HTML. Pure.
import { secondsFormat } from './format.mjs';

// A label cell: the value as text, "-" for none.
export const plain = (v) => (v === null || v === undefined || (typeof v === 'number' && !Number.isFinite(v)) ? '-' : String(v));

/**
 * A column: {label, align?, wrap?, key?, get(datum) -> raw, fmt(raw) -> string, cmp?, against?}.
 * unit: 's' without fmt formats the column in seconds, with one number of decimals for all such
 * columns of the table (format.mjs secondsFormat). cmp: {rule: 'transactions'|'apis'|'resources',
 * toMs, better?: 'higher'} marks a column a comparison puts side by side (toMs: the factor to the
 * rule's milliseconds, 1000 for seconds; a resource's rule has no slack); against: false drops the
 * column from a comparison (its detail would make the table too wide to read).
 */
export function table({ id, caption, columns, data, key, labelCols = 1, empty, source, lookup }) {
  const seconds = secondsFormat(data.flatMap((d) => columns.filter((c) => c.unit === 's' && !c.fmt).map((c) => c.get(d))));
  const cols = columns.map((c) => ({ ...c, key: c.key || c.label, fmt: c.fmt || (c.unit === 's' ? seconds : plain) }));
  return {
    type: 'table',
    id,
    caption,
    columns: cols,
    rows: data.map((d) => cols.map((c) => c.fmt(c.get(d)))),
    values: data.map((d) => cols.map((c) => c.get(d))),
    keys: data.map((d, i) => (key ? String(key(d)) : String(i))),
    labelCols,
    ...(empty ? { empty } : {}),
    ...(source ? { source } : {}),
    // lookup(key) -> the raw values of a row this table does not list (e.g. an API under the
    // slow-API line), for a comparison whose other run lists it
    ...(lookup ? { lookup } : {}),
  };
}

/** Assigns every table block its number (1, 2, ...) in page order; returns the doc. */
export function numberTables(doc) {
  let n = 0;
  for (const s of doc.sections) for (const b of s.blocks) if (b.type === 'table') b.number = ++n;
  return doc;
}

/** Every table block of the document by id. */
export function tablesById(doc) {
  const out = new Map();
  for (const s of doc.sections) for (const b of s.blocks) if (b.type === 'table' && b.id) out.set(b.id, b);
  return out;
}

/** What a finding calls a row: its leading label cells, e.g. "20, check-out". */
export function rowLabel(b, i) {
  return b.rows[i].slice(0, b.labelCols || 1).join(', ');
}

/** The HTML anchor of a table, and of one of its rows. */
export const tableAnchor = (b) => b.id;
export const rowAnchor = (b, i) => `t-${b.id}-r${i}`;

/** The index of the row with `key`, or -1. */
export function rowIndex(b, key) {
  return b.keys ? b.keys.indexOf(String(key)) : -1;
}

/** A row's cell under the column whose label (or key) is `label`; undefined when there is none. */
export function cellOf(b, i, label) {
  const j = b.columns.findIndex((c) => c.label === label || c.key === label);
  return j < 0 ? undefined : b.rows[i][j];
}

/** A row's raw value under the column `label`. */
export function valueOf(b, i, label) {
  const j = b.columns.findIndex((c) => c.label === label || c.key === label);
  return j < 0 || !b.values ? undefined : b.values[i][j];
}

/** The citation of a finding: "Table N, row “label”" (or just "Table N"). */
export function citation(b, row) {
  return row === undefined || row === null || row < 0 ? `Table ${b.number}` : `Table ${b.number}, row “${rowLabel(b, row)}”`;
}
