// Number formats and escaping shared by the report's renderers. Pure.

const finite = (v) => typeof v === 'number' && Number.isFinite(v);

export const s3 = (v) => (finite(v) ? v.toFixed(3) : '-');
export const f1 = (v) => (finite(v) ? v.toFixed(1) : '-');
export const f2 = (v) => (finite(v) ? v.toFixed(2) : '-');
export const int = (v) => (finite(v) ? String(Math.round(v)) : '-');
export const mib = (bytes) => (finite(bytes) ? (bytes / 1048576).toFixed(1) : '-');
export const signedPct = (v) => (finite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(1)}%` : '-');
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
