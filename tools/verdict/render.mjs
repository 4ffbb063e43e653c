// The verdict rows as a terminal table (and the same table in Markdown for a job summary).
const HEAD = ['check', 'metric', 'stat', 'baseline', 'candidate', 'Δ %', 'interval', 'verdict'];

const num = (v) => (v === null || v === undefined ? '–' : Number.isInteger(v) ? String(v) : v.toFixed(v < 10 ? 3 : 1));
// An interval from very few degrees of freedom can reach astronomic bounds: shown as such, not as 1e58.
const pct = (v) => (v === null || v === undefined ? '–' : v > 9999 ? '>+9999' : `${v >= 0 ? '+' : ''}${v.toFixed(1)}`);

function cells(r) {
  const interval = r.interval ? `[${pct(r.interval[0])}, ${pct(r.interval[1])}]` : '–';
  return [r.check, r.metric, r.stat, num(r.baseline), num(r.candidate), pct(r.deltaPct), interval, r.note ? `${r.verdict} (${r.note})` : r.verdict];
}

export function renderVerdict(rows) {
  if (rows.length === 0) return 'verdict: nothing to judge (no threshold matched the run, no baseline given)\n';
  const all = [HEAD, ...rows.map(cells)];
  const w = HEAD.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => c.padEnd(w[i])).join('  ').trimEnd();
  return `${all.map(line).join('\n')}\n`;
}

const esc = (s) => s.replace(/\|/g, '\\|');
export function renderVerdictMarkdown(rows) {
  return [`| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${cells(r).map(esc).join(' | ')} |`)].join('\n') + '\n';
}
