// The database section's pure half: pg_stat_statements snapshots taken before and after k6
// (folio-perf run writes results/<testid>/pg-statements-{start,end}.json) diffed into what the run
// itself executed, and RMB's "Doing … without index" lines counted per module, either from
// line-count snapshots or from log lines dated inside the run's window.

/** Whitespace collapsed, at most `max` characters: a statement fits a table cell. */
export function normaliseQuery(text, max = 120) {
  const s = String(text ?? '').replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * end - start per statement (keyed by queryid; a statement first seen during the run counts from
 * zero; the snapshots' own query is left out). A statement whose counters went down was reset in between (pg_stat_statements_reset or a
 * PostgreSQL restart): its end figures are the run's. Statements the run did not call are left out.
 * @param {Array<{queryid, query, calls, total_ms, rows}>} start
 * @param {Array<{queryid, query, calls, total_ms, rows}>} end
 * @returns {Array<{queryid, query, calls, totalMs, meanMs, rows}>} by total time, largest first
 */
export function diffStatements(start, end) {
  const before = new Map((start || []).map((s) => [String(s.queryid), s]));
  const out = [];
  for (const e of end || []) {
    if (/\bpg_stat_statements\b/.test(e.query)) continue; // the snapshots themselves
    const b = before.get(String(e.queryid));
    const reset = b && (e.calls < b.calls || e.total_ms < b.total_ms);
    const base = b && !reset ? b : { calls: 0, total_ms: 0, rows: 0 };
    const calls = e.calls - base.calls;
    if (calls <= 0) continue;
    const totalMs = e.total_ms - base.total_ms;
    out.push({ queryid: String(e.queryid), query: e.query, calls, totalMs, meanMs: totalMs / calls, rows: e.rows - base.rows });
  }
  return out.sort((a, b) => b.totalMs - a.totalMs || b.calls - a.calls);
}

export function topStatements(diff, n = 10) {
  return {
    byTotal: [...diff].sort((a, b) => b.totalMs - a.totalMs).slice(0, n),
    byMean: [...diff].sort((a, b) => b.meanMs - a.meanMs).slice(0, n),
  };
}

// RMB's CQL2PgJSON warns in four words, by the kind of search it built (full text for = all any
// adj, LIKE for == and <>, plain SQL for < > and /number): "Doing FT search without index for …",
// "Doing LIKE search …", "Doing wildcard LIKE search …", "Doing SQL query …". All four count.
export const WITHOUT_INDEX = /Doing (?:SQL query|FT search|LIKE search|wildcard LIKE search) without index/;
// The CQL index (field) the line names: "… without index for userId".
const FIELD = /without index for ([^\s,;]+)/;

/**
 * The field a without-index line names, or null: the CQL index ("userId") or, where RMB prints the
 * SQL side ("t.jsonb->>'pickupServicePointId'", "jsonb->'status'->>'name'"), its JSON path.
 */
export function withoutIndexField(line) {
  const m = FIELD.exec(line);
  if (!m) return null;
  const path = [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]);
  return path.length ? path.join('.') : m[1].replace(/[.'"]+$/, '');
}

/** {field: lines} of a log's text: the without-index lines by the field they name. */
export function fieldCounts(text) {
  const out = {};
  for (const line of String(text).split('\n')) {
    if (!WITHOUT_INDEX.test(line)) continue;
    const f = withoutIndexField(line) || '(no field named)';
    out[f] = (out[f] || 0) + 1;
  }
  return out;
}

/** Per module and field, the lines logged between two fieldCounts snapshots ({module: {field: n}}). */
export function diffFieldCounts(start, end) {
  const out = {};
  for (const [module, fields] of Object.entries(end || {})) out[module] = diffCounts((start || {})[module] || {}, fields);
  return out;
}

/**
 * Per module, lines logged during the run from line counts taken before and after it
 * ({module: count}); a log that shrank was rotated or truncated, so its end count is the run's.
 */
export function diffCounts(start, end) {
  const out = {};
  for (const [module, n] of Object.entries(end || {})) {
    const b = (start || {})[module] ?? 0;
    out[module] = n >= b ? n - b : n;
  }
  return out;
}

// The first ISO-8601-like date and time on a line: RMB's log4j "2024-03-01T10:00:00,123" or
// "2024-03-01 10:00:00.123", slog's "time=2024-03-01T10:00:00.123Z". Without a zone it is read as UTC.
const STAMP = /(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,](\d{1,9}))?(?: ?(Z|[+-]\d{2}:?\d{2}))?/;

export function lineTime(line) {
  const m = STAMP.exec(line);
  if (!m) return null;
  const frac = m[3] ? `.${m[3].slice(0, 3).padEnd(3, '0')}` : '';
  let zone = m[4] || 'Z';
  if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const t = Date.parse(`${m[1]}T${m[2]}${frac}${zone}`);
  return Number.isFinite(t) ? t : null;
}

/**
 * Lines with WITHOUT_INDEX in a log's text whose time lies in [fromMs, toMs]: {inRun, undated,
 * fields} (undated: such lines without a readable time, reported apart rather than guessed;
 * fields: the in-run lines by the field they name).
 */
export function countWithoutIndex(text, fromMs, toMs) {
  let inRun = 0;
  let undated = 0;
  const fields = {};
  for (const line of String(text).split('\n')) {
    if (!WITHOUT_INDEX.test(line)) continue;
    const t = lineTime(line);
    if (t === null) undated++;
    else if (t >= fromMs && t <= toMs) {
      inRun++;
      const f = withoutIndexField(line) || '(no field named)';
      fields[f] = (fields[f] || 0) + 1;
    }
  }
  return { inRun, undated, fields };
}
