// The I/O half of the database and longevity sections: the run directory's snapshot files
// (folio-perf run), module log files a user points at (--module-logs, for a real FOLIO), and the
// InfluxDB queries for connections and per-period response times.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, basename } from 'node:path';
import { QUERIES } from './queries.mjs';
import { rowsOf } from './influx.mjs';
import { ReportError } from './errors.mjs';
import { diffStatements, diffCounts, countWithoutIndex, diffFieldCounts, fieldCounts } from './db-statements.mjs';
import { periods } from './longevity.mjs';
import { stepLabel } from './format.mjs';

function readJson(path) {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null; // a half-written snapshot (run killed) is reported as missing
  }
}

/**
 * @param {string} dir results/<testid>
 * @param {string|undefined} moduleLogs a directory of <module>.log files (a real FOLIO's)
 */
export function readDbFiles(dir, moduleLogs, fromMs, toMs) {
  const start = readJson(join(dir, 'pg-statements-start.json'));
  const end = readJson(join(dir, 'pg-statements-end.json'));
  const statements = Array.isArray(start) && Array.isArray(end) ? diffStatements(start, end) : null;
  let withoutIndex = null;
  let withoutIndexFields = null;
  let withoutIndexSource = null;
  if (moduleLogs) {
    if (!existsSync(moduleLogs) || !statSync(moduleLogs).isDirectory()) throw new ReportError(`--module-logs ${moduleLogs} is not a directory; fix: give the directory holding the modules' <module>.log files`);
    withoutIndex = {};
    withoutIndexFields = {};
    let undated = 0;
    for (const f of readdirSync(moduleLogs).filter((n) => n.endsWith('.log')).sort()) {
      const c = countWithoutIndex(readFileSync(join(moduleLogs, f), 'utf8'), fromMs, toMs);
      withoutIndex[basename(f, '.log')] = c.inRun;
      withoutIndexFields[basename(f, '.log')] = c.fields;
      undated += c.undated;
    }
    withoutIndexSource = `log lines dated in the run's window, ${moduleLogs}/*.log${undated ? ` (${undated} such lines without a readable time not counted)` : ''}`;
  } else {
    const a = readJson(join(dir, 'index-lines-start.json'));
    const b = readJson(join(dir, 'index-lines-end.json'));
    if (a && b) {
      withoutIndex = diffCounts(a, b);
      withoutIndexSource = 'module log line counts before and after k6 (index-lines-start.json, index-lines-end.json)';
      // the fields the lines name, snapshotted the same way (index-fields-*.json; older runs have none)
      const fa = readJson(join(dir, 'index-fields-start.json'));
      const fb = readJson(join(dir, 'index-fields-end.json'));
      if (fa && fb) withoutIndexFields = diffFieldCounts(fa, fb);
    }
  }
  return { statements, withoutIndex, withoutIndexFields, withoutIndexSource };
}

/**
 * {module: {field: lines}} over the <module>.log files of a directory: the snapshot a run takes of
 * the without-index lines' fields before and after k6 (index-fields-{start,end}.json).
 */
export function indexFieldSnapshot(logDir) {
  const out = {};
  if (!existsSync(logDir)) return out;
  for (const f of readdirSync(logDir).filter((n) => n.endsWith('.log')).sort()) out[basename(f, '.log')] = fieldCounts(readFileSync(join(logDir, f), 'utf8'));
  return out;
}

export async function gatherConnections(client, steps) {
  const out = [];
  for (const st of steps) {
    const r = rowsOf(await client.query(QUERIES.connections(st.fromMs, st.toMs), `connections (${stepLabel(st)})`))[0]?.rows[0];
    out.push({ vus: st.vus, phase: st.phase, avg: r?.avg ?? null, max: r?.max ?? null });
  }
  return out;
}

export async function gatherPeriods(client, testid, measurement, tag, fromMs, toMs) {
  const p = periods(fromMs, toMs);
  for (const per of p.periods) {
    per.rows = rowsOf(await client.query(QUERIES.periodResponse(testid, measurement, tag, per.fromMs, per.toMs), `periodResponse (${per.label})`))
      .filter((s) => s.tags[tag] && !String(s.tags[tag]).startsWith('::'))
      .map((s) => ({ name: s.tags[tag], ...s.rows[0] }));
  }
  return p;
}
