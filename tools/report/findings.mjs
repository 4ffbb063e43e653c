// The report's Summary: findings first, each from a written-down rule (docs/report.md, section
// "Summary"), each with its figure and the table row it came from. A rule reads the finished
// tables (tables the pages show), never the raw data beside them, so every number a finding states
// is a cell of the row it cites; a rule that cannot judge (too short a run, one user count, no
// previous release) says why instead of guessing. The workflow's own rules come from its tools
// module (tools/report/workflows/<name>.mjs `findings`). Pure.
import { rowIndex, cellOf, valueOf } from './doc.mjs';
import { NOT_JUDGED, longevityJudgement } from './longevity.mjs';
import { normaliseQuery } from './db-statements.mjs';
import { METRICS } from '../../lib/metrics.js';

// ---- helpers the rules share -------------------------------------------------------------------

/** `name` as inline code: identifiers (APIs, modules, releases, templates) never read as figures. */
export const code = (s) => `\`${String(s).replace(/`/g, "'")}\``;

/** A finding: its text, the table it came from and, when one row, that row's key. */
export const finding = (text, table, row) => ({ text, table, ...(row === undefined ? {} : { row: String(row) }) });
export const cannot = (reason) => ({ cannot: reason });

/** The cell of this run under a column (B's in a comparison). */
export function fig(b, i, label) {
  return b.against ? cellOf(b, i, `${label} B`) : cellOf(b, i, label);
}
export function figValue(b, i, label) {
  return b.against ? valueOf(b, i, `${label} B`) : valueOf(b, i, label);
}

/**
 * ", +12.0% against `lotus` (0.913 s)" in a comparison whose A has the row; "" otherwise. unit is
 * appended to A's figure.
 */
export function versus(ctx, b, i, label, unit = '') {
  if (!b.against) return '';
  const a = cellOf(b, i, `${label} A`);
  const d = cellOf(b, i, `Δ ${label}`);
  if (a === undefined || a === '-' || d === '-') return '';
  return `, ${d} against ${ctx.againstName} (${a}${unit})`;
}

// The step the "most users" findings read: the last step of the run (the highest user count; a
// search run's last phase).
export function topStep(ctx) {
  const s = ctx.data.steps;
  return s.length ? s[s.length - 1] : null;
}
export const stepKey = (st) => (st.phase ? `${st.vus} (${st.phase})` : String(st.vus));
const usersText = (st) => `${st.vus} user${st.vus === 1 ? '' : 's'}${st.phase ? `, ${st.phase}` : ''}`;

// A table's short title for a finding: its caption before the first parenthesis or semicolon,
// left out when it holds a digit (it would read as a figure of the row).
const shortTitle = (b) => {
  const t = b.caption.split(/ \(|;|:/)[0].trim();
  return /\d/.test(t) ? '' : `${t}: `;
};

// ---- the rules every workflow has ----------------------------------------------------------------

/** Did the run pass: every threshold k6 judged; then each one that failed. */
export const sloVerdict = {
  id: 'slo',
  title: 'SLO verdict',
  judge(ctx) {
    const v = ctx.t('verdict');
    const i = rowIndex(v, 'slo');
    if (!(ctx.summary.thresholds || []).length) return cannot('the run set no threshold (thresholds.json has no rule for this workflow)');
    const out = [{ ...finding(`**${cellOf(v, i, 'Answer')}**: SLO thresholds, ${cellOf(v, i, 'Figures')}`, 'verdict', 'slo'), tone: cellOf(v, i, 'Answer') === 'FAILED' ? 'bad' : 'good' }];
    const th = ctx.t('thresholds');
    th.rows.forEach((r, j) => {
      if (cellOf(th, j, 'Result') !== 'FAILED' || out.length > 5) return;
      out.push({ ...finding(`Threshold failed: ${code(cellOf(th, j, 'Metric'))} ${code(cellOf(th, j, 'Rule'))}, measured ${cellOf(th, j, 'Measured')}`, 'thresholds', th.keys[j]), tone: 'bad' });
    });
    return out;
  },
};

/** Did it regress: the comparison's tally, then its largest regression. */
export const regressionVerdict = {
  id: 'regression',
  title: 'Regression verdict',
  judge(ctx) {
    const v = ctx.t('verdict');
    const i = rowIndex(v, 'regression');
    if (!ctx.against) return cannot(cellOf(v, i, 'Figures'));
    const out = [{ ...finding(`**${cellOf(v, i, 'Answer')}** against ${ctx.againstName}: ${cellOf(v, i, 'Figures')}`, 'verdict', 'regression'), tone: cellOf(v, i, 'Answer') === 'regressed' ? 'bad' : 'good' }];
    // the largest Δ among the regressed cells of every compared table
    let worst = null;
    for (const b of ctx.tables()) {
      (b.comparisons || []).forEach((c, j) => {
        for (const col of c.columns) if (col.verdict === 'regressed' && (!worst || col.delta > worst.delta)) worst = { b, j, col };
      });
    }
    if (worst) {
      const { b, j, col } = worst;
      const [a, bb, d] = b.id === 'baseline-comparison' ? ['A', 'B', 'Δ'].map((l) => cellOf(b, j, l)) : ['A', 'B'].map((s) => cellOf(b, j, `${col.label} ${s}`)).concat(cellOf(b, j, `Δ ${col.label}`));
      out.push(finding(`Largest regression: ${shortTitle(b)}${col.label} ${bb} against ${a} in ${ctx.againstName} (${d})`, b.id, b.keys[j]));
    }
    return out;
  },
};

/** Errors by API: the API and status with the most failed requests. */
export const errors = {
  id: 'errors',
  title: 'Errors by API',
  judge(ctx) {
    const b = ctx.t('errors');
    if (b.rows.length === 0) return [finding('No request failed', 'errors')];
    return [finding(`Errors: ${code(cellOf(b, 0, 'API'))} answered ${cellOf(b, 0, 'Status')} to ${cellOf(b, 0, 'Requests')} requests${b.rows.length > 1 ? ', the most of any API and status' : ''}`, 'errors', b.keys[0])];
  },
};

/** The module with the highest CPU at the most users (the stack's own InfluxDB and PostgreSQL left out). */
export const topCpu = {
  id: 'top-cpu',
  title: 'Top CPU consumer',
  judge(ctx) {
    const b = ctx.t('modules');
    const st = topStep(ctx);
    if (!st) return cannot('no step with samples');
    const rows = b.keys.map((k, i) => [k, i]).filter(([k, i]) => k.endsWith(`|${stepKey(st)}`) && !NOT_JUDGED[k.split('|')[0]] && typeof figValue(b, i, 'CPU avg %') === 'number');
    if (rows.length === 0) return cannot(`no module CPU collected during the run (${METRICS.moduleStats})`);
    rows.sort((x, y) => (figValue(b, y[1], 'CPU avg %') ?? -1) - (figValue(b, x[1], 'CPU avg %') ?? -1));
    const [k, i] = rows[0];
    return [finding(`Top CPU at ${usersText(st)}: ${code(k.split('|')[0])}, ${fig(b, i, 'CPU avg %')} % of one core on average${versus(ctx, b, i, 'CPU avg %', ' %')}`, 'modules', k)];
  },
};

/** The database's CPU at the most users (Telegraf's postgres process). */
export const databaseCpu = {
  id: 'database-cpu',
  title: 'Database CPU',
  judge(ctx) {
    const b = ctx.t('modules');
    const st = topStep(ctx);
    const k = st ? `postgres|${stepKey(st)}` : null;
    const i = k ? rowIndex(b, k) : -1;
    if (i < 0 || figValue(b, i, 'CPU avg %') === null || figValue(b, i, 'CPU avg %') === undefined) return cannot(`PostgreSQL's CPU was not collected (no ${METRICS.moduleStats} of postgres: a database this Telegraf does not watch)`);
    return [finding(`Database (${code('postgres')}) CPU at ${usersText(st)}: ${fig(b, i, 'CPU avg %')} % of one core on average${versus(ctx, b, i, 'CPU avg %', ' %')}`, 'modules', k)];
  },
};

/** The leak verdict of each module, from the memory-trend table. */
export const memory = {
  id: 'memory',
  title: 'Memory: leak verdicts',
  judge(ctx) {
    const b = ctx.t('longevity-memory');
    if (b.rows.length === 0) return cannot(`no module memory collected during the run (${METRICS.moduleStats})`);
    const verdicts = b.rows.map((_, i) => cellOf(b, i, 'Verdict'));
    const leaks = verdicts.map((v, i) => [v, i]).filter(([v]) => v === 'leak');
    if (leaks.length) return leaks.slice(0, 3).map(([, i]) => finding(`${code(cellOf(b, i, 'Module'))} leaks memory: ${cellOf(b, i, 'Growth MiB/h')} MiB/h, ${cellOf(b, i, 'Growth in window')} over the judged window`, 'longevity-memory', b.keys[i]));
    if (verdicts.includes('no leak')) {
      // the module whose memory grew most (the table is sorted by growth per hour), when one grew
      const i = verdicts.findIndex((v, j) => v === 'no leak' && valueOf(b, j, 'Growth MiB/h') > 0);
      if (i < 0) return [finding('No module leaks memory by the leak rule, and none grew', 'longevity-memory')];
      return [finding(`No module leaks memory by the leak rule; the most growth: ${code(cellOf(b, i, 'Module'))} ${cellOf(b, i, 'Growth MiB/h')} MiB/h (${cellOf(b, i, 'Growth %/h')} of its average per hour, R² ${cellOf(b, i, 'R²')})`, 'longevity-memory', b.keys[i])];
    }
    if (verdicts.includes('too short')) return cannot('the judged window (the longest step without its first fifth) is too short for the leak rule');
    return cannot('only processes the leak rule does not judge were collected');
  },
};

/** The statement that took the most time during the run. */
export const topStatement = {
  id: 'top-statement',
  title: 'Top database statement',
  judge(ctx) {
    const b = ctx.t('db-top-total');
    if (!b) return cannot('no pg_stat_statements snapshots around the run (a run not made by folio-perf run, or a database without pg_stat_statements)');
    if (b.rows.length === 0) return cannot('no statement was called during the run');
    return [finding(`Top statement by total time: ${cellOf(b, 0, 'Total ms')} ms in ${cellOf(b, 0, 'Calls')} calls, mean ${cellOf(b, 0, 'Mean ms')} ms: ${code(normaliseQuery(cellOf(b, 0, 'Statement'), 70))}`, 'db-top-total', b.keys[0])];
  },
};

/** RMB's "Doing … without index" warnings, per module, with the fields they name. */
export const withoutIndex = {
  id: 'without-index',
  title: 'Queries without index',
  judge(ctx) {
    const b = ctx.t('db-without-index');
    if (!b) return cannot('module log lines were not counted (no snapshots; on a real FOLIO pass --module-logs)');
    const hit = b.rows.map((_, i) => i).filter((i) => Number(cellOf(b, i, 'Lines')) > 0);
    if (hit.length === 0) return [finding("No module logged RMB's without-index warning", 'db-without-index')];
    return hit.slice(0, 3).map((i) => {
      const f = cellOf(b, i, 'Fields (lines)');
      return finding(`${code(cellOf(b, i, 'Module'))} logged ${cellOf(b, i, 'Lines')} "without index" warnings${f && f !== '-' ? `, on ${f}` : ''}`, 'db-without-index', b.keys[i]);
    });
  },
};

/** Database connections at the most users, and their change from the first step. */
export const connections = {
  id: 'connections',
  title: 'Database connections',
  judge(ctx) {
    const b = ctx.t('db-connections');
    if (!b) return cannot('the database section was not gathered');
    if (!b.keys.some((_, i) => typeof figValue(b, i, 'Average') === 'number')) return cannot('no postgresql samples for the run (Telegraf\'s postgresql input)');
    // this run's rows (a comparison appends the previous release's own after them)
    const mine = b.keys.map((k, i) => i).filter((i) => typeof figValue(b, i, 'Average') === 'number');
    if (mine.length === 1) return cannot('one user count: no growth of connections to judge');
    const st = topStep(ctx);
    const i = st && mine.includes(rowIndex(b, stepKey(st))) ? rowIndex(b, stepKey(st)) : mine[mine.length - 1];
    const at = st && b.keys[i] === stepKey(st) ? usersText(st) : `${cellOf(b, i, 'Users')} users`;
    return [finding(`Database connections at ${at}: ${fig(b, i, 'Average')} on average, ${cellOf(b, i, 'vs first step')} from the first step${versus(ctx, b, i, 'Average')}`, 'db-connections', b.keys[i])];
  },
};

/** Response time drift of a constant-load run long enough to judge. */
export const longevity = {
  id: 'longevity',
  title: 'Longevity',
  judge(ctx) {
    const b = ctx.t('longevity-periods');
    if (!b) return cannot(longevityJudgement(ctx.data.steps).reason || 'no longevity periods');
    if (b.rows.length === 0) return cannot('no samples in the periods');
    let best = 0;
    b.rows.forEach((_, i) => {
      if (Math.abs(valueOf(b, i, 'p95 last vs first') ?? 0) > Math.abs(valueOf(b, best, 'p95 last vs first') ?? 0)) best = i;
    });
    return [finding(`${code(b.rows[best][0])}: p95 ${cellOf(b, best, 'p95 last vs first')} from the first period to the last`, 'longevity-periods', b.keys[best])];
  },
};

/** The rules in the order the summary gives them; the workflow's come after the two verdicts. */
export function rulesFor(wf) {
  return [sloVerdict, regressionVerdict, ...(wf.findings || []), errors, topCpu, databaseCpu, memory, topStatement, withoutIndex, connections, longevity];
}

/**
 * Every rule's findings: [{rule, text, table, row?}] and [{rule, cannot}]. ctx: {t(id) -> table
 * block, tables() -> every table block, summary, data, against (label) or null, againstName}.
 */
export function runRules(rules, ctx) {
  const out = [];
  for (const r of rules) {
    const res = r.judge(ctx);
    if (Array.isArray(res)) for (const f of res) out.push({ rule: r.id, title: r.title, ...f });
    else out.push({ rule: r.id, title: r.title, cannot: res.cannot });
  }
  return out;
}
