// `report <testid> --against <A>`: the previous release (A) beside this run (B) in the report's own
// tables. Each table built by doc.mjs's table() that marks columns to compare gets, for each of
// them, the columns "<stat> A", "<stat> B" and "Δ <stat>" (B / A - 1), and a Verdict column by the
// regression gate's rule (thresholds.json "regression": B regressed when it exceeds A x (1 +
// tolerance) + slack, improved when A exceeds B so; else within noise). Rows are matched by key:
// a row only one run lists is shown with the other run's figures when the table can look them up
// (an API under the slow line in one run), else with "-". Pure.
import { secondsFormat, signedPct } from './format.mjs';
import { deltaPct, verdict } from './stats.mjs';
import { plain } from './doc.mjs';

/** The rules a comparison judges by: thresholds.json's transactions and apis, resources without slack. */
export function againstRules(rules) {
  return { ...rules, resources: { tolerance: rules.transactions.tolerance, slackMs: 0 } };
}

export const ruleText = (r) => `+${Math.round(r.tolerance * 100)} %${r.slackMs ? ` + ${r.slackMs} ms` : ''}`;

// One row's verdict from its columns' verdicts: regressed names the stats that regressed.
function rowVerdict(cells) {
  const judged = cells.filter((c) => c.verdict !== 'not comparable');
  if (judged.length === 0) return 'not comparable';
  const reg = judged.filter((c) => c.verdict === 'regressed').map((c) => c.label);
  if (reg.length) return `regressed: ${reg.join(', ')}`;
  const imp = judged.filter((c) => c.verdict === 'improved').map((c) => c.label);
  if (imp.length) return `improved: ${imp.join(', ')}`;
  return 'within noise';
}

/** A column's verdict for values a (A) and b (B). */
export function judge(a, b, cmp, rules) {
  const rule = rules[cmp.rule];
  if (!rule || typeof a !== 'number' || typeof b !== 'number') return 'not comparable';
  const k = cmp.toMs ?? 1;
  return cmp.better === 'higher' ? verdict(b * k, a * k, rule) : verdict(a * k, b * k, rule);
}

/**
 * B's table with A's figures beside it. b: this run's table block; a: A's block of the same id (or
 * null: the table gets A's "-"). Blocks without values (text, tables not built by table()) and
 * tables without a column to compare are returned as they are.
 */
export function againstBlock(b, a, rules, aLabel) {
  if (b.type !== 'table' || !b.values || !b.columns.some((c) => c.cmp)) return b;
  const cols = b.columns.filter((c) => c.against !== false);
  const aCol = (c) => (a ? a.columns.findIndex((x) => x.key === c.key) : -1);
  const keys = [...b.keys, ...(a ? a.keys.filter((k) => !b.keys.includes(k)) : [])];
  const valuesOf = (blk, key) => {
    if (!blk) return null;
    const i = blk.keys.indexOf(key);
    if (i >= 0) return blk.values[i];
    return blk.lookup ? blk.lookup(key) : null;
  };
  const pairs = keys.map((key) => {
    const bv = valuesOf(b, key);
    const av = valuesOf(a, key);
    return { key, bv, av, get: (c) => ({ b: bv ? bv[b.columns.indexOf(c)] : null, a: av && aCol(c) >= 0 ? av[aCol(c)] : null }) };
  });
  // One seconds format over both runs' seconds, so A's and B's cells have the same decimals.
  const seconds = secondsFormat(pairs.flatMap((p) => cols.filter((c) => c.unit === 's').flatMap((c) => Object.values(p.get(c)))));
  const fmtOf = (c) => (c.unit === 's' ? seconds : c.fmt);
  const columns = [];
  for (const c of cols) {
    if (!c.cmp) columns.push(c);
    else {
      const base = { align: 'r', fmt: fmtOf(c) };
      columns.push({ ...base, label: `${c.label} A`, key: `${c.key} A` }, { ...base, label: `${c.label} B`, key: `${c.key} B` }, { align: 'r', label: `Δ ${c.label}`, key: `Δ ${c.key}`, fmt: signedPct });
    }
  }
  columns.push({ label: 'Verdict', key: 'Verdict', fmt: plain });
  const rows = [];
  const values = [];
  const comparisons = [];
  for (const p of pairs) {
    const cells = [];
    const raw = [];
    const judged = [];
    for (const c of cols) {
      const { a: av, b: bv } = p.get(c);
      if (!c.cmp) {
        // a label or a figure of B's alone; a row only A lists shows A's label
        const v = p.bv ? bv : c.against !== false && b.columns.indexOf(c) < (b.labelCols || 1) ? av : null;
        cells.push(fmtOf(c)(v));
        raw.push(v);
      } else {
        const d = deltaPct(av, bv);
        const v = judge(av, bv, c.cmp, rules);
        cells.push(fmtOf(c)(av), fmtOf(c)(bv), signedPct(d));
        raw.push(av, bv, d);
        judged.push({ label: c.label, a: av, b: bv, delta: d, verdict: v });
      }
    }
    const rv = !p.bv ? 'only in A' : !p.av ? 'only in B' : rowVerdict(judged);
    cells.push(rv);
    raw.push(rv);
    rows.push(cells);
    values.push(raw);
    comparisons.push({ verdict: rv, columns: judged });
  }
  const used = [...new Set(cols.filter((c) => c.cmp).map((c) => c.cmp.rule))];
  return {
    ...b,
    caption: `${b.caption}; A = ${aLabel}, B = this run; verdict: ${used.map((r) => `${r} ${ruleText(rules[r])}`).join(', ')}`,
    columns,
    rows,
    values,
    keys,
    comparisons,
    against: true,
    lookup: undefined,
  };
}

/** Per table compared: rows compared, regressed and improved (the verdict's tally). */
export function tally(blocks) {
  return blocks
    .filter((b) => b.comparisons)
    .map((b) => {
      const judged = b.comparisons.filter((c) => /^(regressed|improved|within noise)/.test(c.verdict));
      return { id: b.id, caption: b.caption, compared: judged.length, regressed: judged.filter((c) => c.verdict.startsWith('regressed')).length, improved: judged.filter((c) => c.verdict.startsWith('improved')).length };
    });
}
