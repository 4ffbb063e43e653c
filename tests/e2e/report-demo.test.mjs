// The demo's two runs, reported: tools/demo.sh's own `make run` settings (read from the script, so
// the test follows it), each run through `folio-perf run` on the tests' stack, then `folio-perf
// report`. Every finding of each Summary holds the numbers of the row it cites, the Summary sits
// above the first table, and each report describes what its run's start recorded. About 12
// minutes (CICO 4 x 1 min at up to 20 users; mod-search 30 s warm-up and 4 x 1 min with a
// reindex): not part of `make test`; `make test-e2e-report-demo`. Needs OpenSearch (the search stack).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repo, env, run, mdTable, folioPerf } from './helpers.mjs';
import { parseDefaults } from '../../lib/defaults.js';
import { checkSummary } from '../summary-check.mjs';

const stamp = Date.now();
const defaults = parseDefaults(readFileSync(join(repo, 'defaults.env'), 'utf8'));

/** The NAME=VALUE settings of each `make ... run` line of tools/demo.sh, $FP_DEFAULT_X expanded. */
export function demoRuns(script) {
  return script
    .split('\n')
    .filter((l) => /^make .*\brun\b/.test(l))
    .map((l) =>
      Object.fromEntries(
        [...l.matchAll(/([A-Z][A-Z0-9_]*)=("[^"]*"|\S+)/g)].map(([, k, v]) => [k, v.replace(/^"|"$/g, '').replace(/\$\{?FP_DEFAULT_([A-Z0-9_]+)\}?/g, (_, x) => defaults[`FP_${x}`])]),
      ),
    );
}

const runs = demoRuns(readFileSync(join(repo, 'tools', 'demo.sh'), 'utf8'));
const reports = {};

before(async () => {
  assert.equal(runs.length, 2, 'the demo makes two runs');
  const os = `http://127.0.0.1:${env('FP_OPENSEARCH_PORT')}`;
  assert.ok(await fetch(`${os}/_cluster/health`).then((r) => r.ok, () => false), `OpenSearch is not answering at ${os}; fix: start the search stack (stack/stack.sh up search)`);
  for (const vars of runs) {
    const workflow = vars.WORKFLOW || 'cico';
    const testid = `e2e-report-demo-${workflow}-${stamp}`;
    const r = run(process.execPath, [join(repo, 'tools', 'folio-perf.mjs'), 'run'], { env: { ...vars, TESTID: testid }, timeoutMs: 1_200_000 });
    assert.equal(r.status, 0, `${workflow}: ${r.stdout.slice(-3000)}${r.stderr}`);
    const rep = folioPerf(['report', testid]);
    assert.equal(rep.status, 0, rep.stdout + rep.stderr);
    reports[workflow] = { testid, vars, md: readFileSync(join(repo, 'results', testid, 'report.md'), 'utf8'), summary: JSON.parse(readFileSync(join(repo, 'results', testid, 'summary.json'), 'utf8')) };
  }
});

test('the demo\'s settings: CICO on lotus, then mod-search with a reindex', () => {
  assert.deepEqual(runs[0], { PROFILE: 'demo', MINIFOLIO_PROFILE: 'lotus' });
  assert.equal(runs[1].WORKFLOW, 'search');
  assert.equal(runs[1].REINDEX_TENANT, defaults.FP_REINDEX_TENANT);
});

for (const workflow of ['cico', 'search']) {
  test(`${workflow}: every finding's numbers are in the row it cites; the Summary comes first; what was tested is the run's record`, () => {
    const { md, summary } = reports[workflow];
    const items = checkSummary(md);
    assert.ok(md.indexOf('## Summary') < md.indexOf('**Table 1.'), 'the Summary above the first table');
    assert.match(items[0].text, /^\*\*(passed|FAILED)\*\*: SLO thresholds, /);
    assert.ok(items.some((i) => /^Worst (API|request)/.test(i.text)), 'the worst API or request');
    assert.ok(items.some((i) => i.cannot && /^_Not judged: Longevity: the run changes its load/.test(i.text)), 'a stepped demo run gets no longevity verdict');
    const versions = mdTable(md, 'Module versions').rows.map((r) => `${r[0]}-${r[1]}`).sort();
    assert.deepEqual(versions, summary.meta.record.modules.map((m) => m.id).sort());
    console.log(`${workflow} (${reports[workflow].testid}): ${items.filter((i) => !i.cannot).length} findings checked against their rows, ${items.filter((i) => i.cannot).length} not judged`);
  });
}

test('cico on lotus: the users the demo ran (1, 5, 8, 20) each have their rows; the versions are lotus\'s', () => {
  const { md } = reports.cico;
  const rows = mdTable(md, 'Response times').rows;
  assert.deepEqual([...new Set(rows.map((r) => r[0]))], ['1', '5', '8', '20']);
  assert.ok(mdTable(md, 'Module versions').rows.some((r) => r[0] === 'mod-circulation' && r[1] === '23.0.1'), 'lotus: mod-circulation 23.0.1');
});
