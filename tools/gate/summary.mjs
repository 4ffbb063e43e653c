// The gate's lines in a GitHub job summary (GITHUB_STEP_SUMMARY), in Markdown. The verdict's own
// table is `folio-perf verdict`'s (tools/verdict/render.mjs); these say what was measured, where,
// and what to do with the result. Pure.

const ms = (v) => (v === null || v === undefined ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1));
const esc = (s) => String(s).replace(/\|/g, '\\|');

/** The baseline job's summary: each judged metric's p95 per run, their spread, how to use it. */
export function baselineSummary(baseline, { plan, runId, artifact, file }) {
  const runs = baseline.runs.map((r) => r.testid);
  const head = ['metric', ...runs.map((_, i) => `run ${i + 1} p95 ms (n)`), 'run-to-run spread %'];
  const rows = Object.entries(baseline.metrics).map(([key, m]) => [
    key,
    ...m.runs.map((r) => `${ms(r.q)} (${r.n})`),
    m.spreadPct === null || m.spreadPct === undefined ? '–' : m.spreadPct.toFixed(1),
  ]);
  const use = runId
    ? `Judge a candidate against it with \`mode: candidate\` and \`baseline-run-id: ${runId}\` (artifact \`${artifact}\`, ` +
      'kept as long as your repository keeps artifacts), or commit its `baseline.json` to your repository and set `baseline:` to its path.'
    : `Judge a candidate against it: \`folio-perf verdict <testid> --baseline ${file}\`.`;
  return [
    `### folio-perf baseline: ${esc(plan.release)} on ${esc(plan.target.url)} (tenant ${esc(plan.target.tenant)})`,
    '',
    `${runs.length} runs of PROFILE=${esc(baseline.profile)} (users ${baseline.steps.join('/')}, ${esc(baseline.runs[0]?.stepDuration || '?')} each, ` +
      `think ${esc(baseline.think)}): ${runs.map((t) => `\`${t}\``).join(', ')}. Pooled run-to-run spread of p95: ` +
      `${baseline.spread.pct === null ? '– (one run)' : `${baseline.spread.pct.toFixed(1)} %`}.`,
    '',
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
    '',
    use,
    '',
  ].join('\n');
}

/** The candidate job's lines above the verdict's table. */
export function candidateHeader(baseline, { plan, testid }) {
  return [
    `### folio-perf gate: ${esc(plan.release)} on ${esc(plan.target.url)} (tenant ${esc(plan.target.tenant)})`,
    '',
    `Candidate \`${testid}\` (PROFILE=${esc(plan.profile)}) against the baseline (${esc(plan.baselineLabel || plan.baselineFile)}): release ${esc(baseline.release)}, ` +
      `${baseline.runs.length} runs, recorded ${esc(baseline.created)}. Judged ${plan.control === 'none' ? 'in absolute quantiles' : `relative to ${esc(plan.control === 'speed' ? "the run's speed" : plan.control)}`} ` +
      `at a false-alarm rate of ${plan.alpha} (docs/gate.md). Exit 99, the job failing: an SLO failed or a metric regressed.`,
    '',
  ].join('\n');
}

/** The candidate job's line under the verdict's table. */
export function candidateFooter({ code, artifact, testid }) {
  const what = code === 0 ? '**passed**: nothing regressed beyond the baseline\'s run-to-run noise, no SLO failed' : code === 99 ? '**failed**: see the rows marked regressed or failed above' : `**not judged** (exit ${code})`;
  return `\nVerdict ${what}. Reports: artifact \`${artifact}\`, \`runs/${testid}/report.html\`.\n\n`;
}
