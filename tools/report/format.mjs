// Number formats and escaping shared by the report's renderers. Pure.

const finite = (v) => typeof v === 'number' && Number.isFinite(v);

export const s3 = (v) => (finite(v) ? v.toFixed(3) : '-');

/**
 * Seconds for one table: three decimals as the release reports write them, more when the table's
 * smallest non-zero value would keep fewer than two significant digits (a fast target's 0.004 s
 * would show as "0.004", or "0.000"; it shows "0.0043"). One decimals count per table, so a column
 * still lines up. values: every number the formatter will show.
 */
export function secondsFormat(values) {
  const small = values.filter((v) => finite(v) && v > 0);
  const min = small.length ? Math.min(...small) : 1;
  const decimals = Math.min(6, Math.max(3, Math.ceil(-Math.log10(min)) + 1));
  return (v) => (finite(v) ? v.toFixed(decimals) : '-');
}
export const f1 = (v) => (finite(v) ? v.toFixed(1) : '-');
export const f2 = (v) => (finite(v) ? v.toFixed(2) : '-');
export const int = (v) => (finite(v) ? String(Math.round(v)) : '-');
export const mib = (bytes) => (finite(bytes) ? (bytes / 1048576).toFixed(1) : '-');
// Rounded first, so that a change under 0.05 % reads +0.0%, never -0.0%.
export const signedPct = (v) => {
  if (!finite(v)) return '-';
  const r = Math.round(v * 10) / 10 || 0;
  return `${r >= 0 ? '+' : ''}${r.toFixed(1)}%`;
};
export const factor = (v) => (finite(v) ? `${v.toFixed(2)}x` : '-');

// Markdown table cell: a pipe would end the cell, a newline the row; < and & start HTML for a
// Markdown renderer, so names like "GET /x?<a>" stay text.
export function mdCell(s) {
  return String(s).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\r?\n/g, ' ');
}

export function htmlEscape(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A step's name: "2 users", or "2 users, reindex" for a search run's phases. */
export const stepLabel = (st) => `${plural(st.vus, 'user')}${st.phase ? `, ${st.phase}` : ''}`;
