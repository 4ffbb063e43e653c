// The migration report: `folio-perf compare` of a run on Okapi (A) and a run on Eureka (B) of the
// same release line, e.g. the same UI release replayed against both (UI_RELEASE). On Eureka every
// request crosses Kong and the called module's sidecar, and every module-to-module call two
// sidecars, where Okapi had one gateway: these tables show that hop's cost per API (every API both
// runs sent, not only the slow ones) and per process (each module beside its sidecar, Okapi's
// gateway beside Kong and Keycloak). Pure: compare.mjs adds them when the platforms differ.
import { parseMetricKey } from '../../lib/baseline.js';
import { METRICS, TAGS } from '../../lib/metrics.js';
import { COLUMNS, row } from './compare-tables.mjs';
import { f1, plural, signedPct } from './format.mjs';
import { deltaPct } from './stats.mjs';

const SIDECAR = 'sidecar-';

/** The platform a run recorded (okapi | eureka), or null for a run that did not say. */
export function platformOf(summary) {
  const m = summary?.meta || {};
  const p = m.platform || m.record?.platform || null;
  return p ? String(p).toLowerCase() : null;
}

/** Whether A and B ran on different platforms: then compare adds the migration tables. */
export function isMigration(a, b) {
  const pa = platformOf(a);
  const pb = platformOf(b);
  return Boolean(pa && pb && pa !== pb);
}

// Per API and user count: p50, p95 and count from k6's sub-metrics http_req_duration{name,vus}.
function apiStats(summary) {
  const out = new Map();
  for (const [key, m] of Object.entries(summary.k6?.metrics || {})) {
    const { metric, tags } = parseMetricKey(key);
    if (metric !== METRICS.httpDuration || !tags[TAGS.name] || !tags[TAGS.vus] || Object.keys(tags).length !== 2 || !m?.values?.count) continue;
    out.set(`${tags[TAGS.name]}|${tags[TAGS.vus]}`, m.values);
  }
  return out;
}

/** Every API either run sent, p50 and p95 in ms per user count, A then B, with the difference. */
export function apiHops(a, b, rule) {
  const A = apiStats(a);
  const B = apiStats(b);
  const keys = [...new Set([...A.keys(), ...B.keys()])].map((k) => k.split('|')).sort((x, y) => Number(x[1]) - Number(y[1]) || x[0].localeCompare(y[0]));
  const rows = [];
  for (const [name, vus] of keys) {
    const k = `${name}|${vus}`;
    for (const stat of ['p(50)', 'p(95)']) {
      const va = A.get(k)?.[stat] ?? null;
      const vb = B.get(k)?.[stat] ?? null;
      const r = row(`${name} (${plural(Number(vus), 'user')}) ${stat.replace(/[()]/g, '')}`, va, vb, rule, { fmt: f1, toMs: 1 });
      // The hop's cost in ms beside the ratio: what Eureka adds to this API.
      r.splice(4, 0, typeof va === 'number' && typeof vb === 'number' ? `${vb - va >= 0 ? '+' : ''}${(vb - va).toFixed(1)}` : '-');
      rows.push(r);
    }
  }
  const columns = [...COLUMNS('API (users) stat')];
  columns.splice(4, 0, { label: 'B - A ms', align: 'r' });
  return {
    type: 'table',
    id: 'cmp-migration-apis',
    caption: `Every API on ${platformOf(a)} (A) and ${platformOf(b)} (B): response time in ms; B - A is what the platform's hops add`,
    columns,
    rows,
    empty: 'Neither run recorded a request per API.',
    source: `summary.json k6 ${METRICS.httpDuration}{name,vus} of A and B`,
  };
}

/**
 * Per module and user count: its CPU on A, its CPU on B, its sidecar's on B, and B's sum against
 * A (the module's share of the hop); processes of one platform only (okapi, kong, keycloak) on
 * rows of their own. moduleSteps: gather()'s of each run.
 */
export function processHops(ma, mb) {
  const cpu = (steps) => {
    const out = new Map();
    for (const st of steps) for (const s of st.stats) out.set(`${s.module}|${st.vus}|${st.phase || ''}`, s.cpu_avg);
    return out;
  };
  const A = cpu(ma);
  const B = cpu(mb);
  const steps = [...new Set([...A.keys(), ...B.keys()].map((k) => k.split('|').slice(1).join('|')))].sort((x, y) => Number(x.split('|')[0]) - Number(y.split('|')[0]));
  const modules = [...new Set([...A.keys(), ...B.keys()].map((k) => k.split('|')[0]).filter((m) => !m.startsWith(SIDECAR)))].sort();
  const rows = [];
  const num = (v) => (typeof v === 'number' ? v : null);
  for (const step of steps) {
    const [vus, phase] = step.split('|');
    for (const m of modules) {
      const a = num(A.get(`${m}|${step}`));
      const b = num(B.get(`${m}|${step}`));
      const side = num(B.get(`${SIDECAR}${m}|${step}`));
      if (a === null && b === null && side === null) continue;
      const total = b === null && side === null ? null : (b || 0) + (side || 0);
      rows.push([`${m} (${plural(Number(vus), 'user')}${phase ? `, ${phase}` : ''})`, f1(a), f1(b), f1(side), f1(total), signedPct(deltaPct(a, total))]);
    }
  }
  return {
    type: 'table',
    id: 'cmp-migration-processes',
    caption: 'CPU per process (% of a core, average): each module on A, on B, its sidecar on B, and B with the sidecar against A',
    columns: [{ label: 'Process (users)', wrap: true }, { label: 'A', align: 'r' }, { label: 'B', align: 'r' }, { label: 'B sidecar', align: 'r' }, { label: 'B + sidecar', align: 'r' }, { label: 'Δ %', align: 'r' }],
    rows,
    empty: `No ${METRICS.moduleStats} for either run.`,
    source: `InfluxDB: ${METRICS.moduleStats} of A and B (sidecars tagged ${SIDECAR}<module>)`,
  };
}

/** The migration section of a comparison, or null when both runs are on one platform. */
export function migrationSection(a, b, dataA, dataB, rule) {
  if (!isMigration(a, b)) return null;
  return {
    id: 'migration',
    title: `Migration: ${platformOf(a)} (A) to ${platformOf(b)} (B)`,
    blocks: [apiHops(a, b, rule), processHops(dataA.moduleSteps || [], dataB.moduleSteps || [])],
  };
}
